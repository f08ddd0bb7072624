/**
 * The first hour, played: a new character in the shipped world (data/), steered by a script
 * that plays as a new player would and knows only what a client knows (its own stats and
 * cooldowns, where its own walk has it, what is in its view, the spell book, the walls), walks
 * the road from Greenvale's spawn to the border and crosses into Ashmoor. No sockets: both
 * zones are stepped tick by tick as one host runs them (strips, border hits and the hand-off
 * go over the wire format between them, as in handoff.test.ts), with seeded randomness, so a
 * seed replays exactly.
 *
 * It judges range and sight from where its own walk has it, as a client does: the server's
 * record of a walker is its newest state, which for a turn stands at the corner where the
 * walk turned, a frame or so behind where its client is (server/world/walkers.ts).
 *
 * The player follows findPath along the road; fights what comes for it, and pulls what stands
 * near the road at no more than two levels above its own (never grey ones); casts a rotation
 * (Arcane Shot when ready, Fireball, Frostbolt to finish or when mana is short, Renew and Heal
 * when hurt) within range and sight; rests when health or mana run low; and sends its movement
 * as a client does (MoveSender: starts, stops, turns, heartbeats every 250 ms).
 */
import { describe, expect, it } from 'vitest';
import { decodeHandoff, decodeStrip, encodeHandoff, encodeStrip } from '../../server/cluster/border-wire.js';
import { stripStates } from '../../server/world/ghosts.js';
import { roadDistanceWithin, shortestWalkToLine, worldGround } from '../../server/world/gradient.js';
import {
  createWorld,
  isGrey,
  joinPlayer,
  loadWorldData,
  mulberry32,
  step,
  withSpellPower,
  type Mob,
  type Player,
  type Rng,
  type SpellData,
  type World,
  type WorldEvent,
  type WorldInput,
} from '../../server/world/index.js';
import { MoveSender } from '../../shared/client/move-sender.js';
import { distance, ENTITY_RADIUS, headingTo, type Vec2 } from '../../shared/game/movement.js';
import { findPath, nearestClear } from '../../shared/game/path.js';
import { inSight } from '../../shared/game/sight.js';

const TICK = 50;
const data = loadWorldData('data');
const [GREENVALE, ASHMOOR] = data.zones as [(typeof data.zones)[0], (typeof data.zones)[0]];
const { walls, bounds } = worldGround(data);
const SPAWN = GREENVALE.playerSpawn;
const BORDER = ASHMOOR.x;
/** The road: the shortest walk from the spawn to the border (as test/world/gradient.test.ts checks it). */
const ROAD = shortestWalkToLine(
  walls,
  { ...bounds, width: BORDER - bounds.x },
  SPAWN,
  BORDER - ENTITY_RADIUS - 1,
)!;
/** Where the walk ends: a few steps into Ashmoor, level with where the road meets the line. */
const GOAL = nearestClear({ x: BORDER + 60, y: ROAD.at(-1)!.y }, walls, ENTITY_RADIUS, bounds)!;
/** What "near the road" means to the player: a mob it may pull stands this close to it. */
const NEAR_ROAD = 150;
const ROAD_POINTS = [SPAWN, ...ROAD, GOAL];

/** How far along the road the point of it nearest to `p` lies. */
function roadPosition(p: Vec2): number {
  let best = Infinity;
  let at = 0;
  let walked = 0;
  for (let i = 1; i < ROAD_POINTS.length; i++) {
    const a = ROAD_POINTS[i - 1]!;
    const b = ROAD_POINTS[i]!;
    const len = distance(a, b);
    const u =
      len === 0
        ? 0
        : Math.max(0, Math.min(1, ((p.x - a.x) * (b.x - a.x) + (p.y - a.y) * (b.y - a.y)) / len ** 2));
    const d = distance(p, { x: a.x + (b.x - a.x) * u, y: a.y + (b.y - a.y) * u });
    if (d < best) {
      best = d;
      at = walked + u * len;
    }
    walked += len;
  }
  return at;
}

function spellNamed(name: string): SpellData {
  const s = [...data.spells.values()].find((x) => x.name === name);
  if (!s) throw new Error(`no spell ${name} in data/spells.json`);
  return s;
}
const FIREBALL = spellNamed('Fireball');
const FROSTBOLT = spellNamed('Frostbolt');
const ARCANE_SHOT = spellNamed('Arcane Shot');
const HEAL = spellNamed('Heal');
const RENEW = spellNamed('Renew');

/** Both zones as one host runs them: strips (with border hits and kills) and hand-offs cross after each tick. */
class Zones {
  readonly worlds: World[];
  private readonly rngs: Rng[];
  private pending: WorldInput[][];

  constructor(seed: number) {
    const open = data.zones.map((z) => z.name);
    this.rngs = data.zones.map((_, i) => mulberry32(seed * 7919 + i));
    this.worlds = data.zones.map((z, i) =>
      createWorld(data, { zone: z.name, rng: this.rngs[i]!, now: 0, openBorders: open }),
    );
    this.pending = this.worlds.map(() => []);
  }

  /** The world that holds player `id`, or is about to take it in (a hand-off on its way). */
  holding(id: number): World | undefined {
    const i = this.index(id);
    return i < 0 ? undefined : this.worlds[i];
  }

  private index(id: number): number {
    const here = this.worlds.findIndex((w) => w.players.has(id));
    if (here >= 0) return here;
    return this.pending.findIndex((inputs) =>
      inputs.some((x) => x.type === 'arrive' && x.state.entity.id === id),
    );
  }

  /** One tick of both zones at `t`; `inputs` are player `id`'s, for whichever zone holds it. */
  tick(t: number, id: number, inputs: WorldInput[]): WorldEvent[] {
    const at = this.index(id);
    const events = this.worlds.map((w, i) => {
      const given = [...this.pending[i]!, ...(i === at ? inputs : [])];
      return step(w, given, t, this.rngs[i]!).events;
    });
    this.pending = this.worlds.map(() => []);
    this.worlds.forEach((from, i) => {
      for (const e of events[i]!) {
        if (e.type !== 'handedOff') continue;
        const to = this.worlds.findIndex((w) => w.zone.name === e.to);
        this.pending[to]!.push({
          type: 'arrive',
          sessionId: e.sessionId,
          state: decodeHandoff(encodeHandoff(e.state)),
        });
      }
      this.worlds.forEach((to, j) => {
        if (j === i) return;
        const news = from.borderNews.get(to.zone.name);
        from.borderNews.delete(to.zone.name);
        const s = decodeStrip(encodeStrip(from.zone.name, stripStates(from, to.zone), news));
        this.pending[j]!.push({
          type: 'strip',
          from: s.from,
          entities: s.entities,
          hits: s.hits,
          kills: s.kills,
        });
      });
    });
    return events.flat();
  }
}

/** What the playthrough came to. */
interface Figures {
  seed: number;
  /** Handed over to Ashmoor: the level it had then, and the simulated minutes from entering the world. */
  crossed: { level: number; minutes: number; alive: boolean } | null;
  /** Where the walk ended: in Ashmoor, alive, at this level, after this many minutes. */
  inAshmoor: boolean;
  alive: boolean;
  level: number;
  minutes: number;
  kills: number;
  deaths: number;
  /** All experience earned on the way. */
  experience: number;
  /** Level reached at each minute mark: [level, minutes]. */
  levelUps: [number, number][];
  rests: number;
  casts: number;
  refusedCasts: number;
  refusedMoves: number;
}

/**
 * A new player at the keyboard. Each tick it reads what its client would show (its own
 * entity and stats, the entities in its view, the events addressed to it) and answers with
 * inputs stamped with its clock, as a client sends them.
 */
class NewPlayer {
  readonly sender = new MoveSender();
  pos: Vec2;
  facing = 0;
  epoch: number;
  private seq = 1;
  /** Waypoints still to walk (findPath's), and where they lead. */
  private plan: Vec2[] = [];
  private planFor: 'road' | number | null = null;
  private plannedAt = -Infinity;
  private targetId = 0;
  private pulledAt = -Infinity;
  /** Mobs that struck it, and when last. */
  private readonly struck = new Map<number, number>();
  /** Mobs it killed: it does not go back for them when they come again (a new player moves on). */
  private readonly killed = new Set<number>();
  /** Mobs it found no way to reach, and until when it leaves them be. */
  private readonly shunned = new Map<number, number>();
  private resting = false;
  /** Dead, from the first zone that tells of it until it stands up again. */
  private dead = false;
  /** Its clock at the tick it decides in. */
  private clock = 0;
  readonly figures: Omit<Figures, 'seed' | 'inAshmoor' | 'alive' | 'level' | 'minutes' | 'kills'>;

  constructor(
    readonly id: number,
    start: Player,
    now: number,
  ) {
    this.pos = { x: start.x, y: start.y };
    this.facing = start.facing;
    this.epoch = start.moveEpoch;
    this.sender.reset(now, start.x, start.y, start.facing);
    this.figures = {
      crossed: null,
      deaths: 0,
      experience: 0,
      levelUps: [],
      rests: 0,
      casts: 0,
      refusedCasts: 0,
      refusedMoves: 0,
    };
  }

  /** The events of a tick, as its client hears them. */
  observe(events: readonly WorldEvent[], t: number): void {
    for (const e of events) {
      switch (e.type) {
        case 'spellHit':
          if (e.target.id === this.id && e.effect === 'damage' && e.sourceId !== this.id)
            this.struck.set(e.sourceId, t);
          break;
        case 'died':
          // A death by the line is told by both zones (the one across holds its ghost): once.
          if (e.entity.id === this.id && !this.dead) this.figures.deaths++;
          if (e.entity.id === this.id) this.dead = true;
          if (e.killerId === this.id) this.killed.add(e.entity.id);
          break;
        case 'moveRefused':
        case 'relocated':
          if (e.player.id !== this.id) break;
          if (e.type === 'moveRefused') this.figures.refusedMoves++;
          // The server put it somewhere: it stands there and plans its way anew.
          this.pos = { x: e.x, y: e.y };
          this.facing = e.facing;
          this.epoch = e.epoch;
          this.sender.reset(t, e.x, e.y, e.facing);
          this.plan = [];
          this.planFor = null;
          this.targetId = 0;
          this.resting = false;
          break;
        case 'respawned':
          if (e.entity.id === this.id) this.dead = false;
          break;
        case 'experienceGained':
          if (e.player.id === this.id) this.figures.experience += e.amount;
          break;
        case 'leveledUp':
          if (e.player.id === this.id) this.figures.levelUps.push([e.level, Math.round(t / 600) / 100]);
          break;
        case 'castRefused':
          if (e.player.id === this.id) this.figures.refusedCasts++;
          break;
        case 'handedOff':
          if (e.playerId !== this.id) break;
          this.figures.crossed = {
            level: e.state.entity.level,
            minutes: Math.round(t / 600) / 100,
            alive: e.state.entity.alive,
          };
          break;
      }
    }
  }

  /** Its inputs for client time `t`, having seen `me` (undefined while it is between zones). */
  decide(t: number, me: Player | undefined): WorldInput[] {
    this.clock = t;
    if (!me) return this.walk(t);
    if (!me.alive) return [];
    // A cast bar runs: standing still lets it finish.
    if (me.cast) return [];
    const mobs: Mob[] = [];
    for (const e of me.visible.values()) if (e.kind === 'mob' && e.alive) mobs.push(e);
    const threats = mobs.filter((m) => this.comingFor(me, m, t));
    let target = this.target(me, mobs, threats, t);
    if (!target && threats.length > 0) target = this.nearest(threats);
    if (target) {
      this.resting = false;
      return this.fight(t, me, target);
    }
    this.targetId = 0;
    // Out of the fight: rest when low, until nearly full (the rest rule makes it quick).
    const low = me.health < 0.7 * me.maxHealth || me.mana < 0.6 * me.maxMana;
    const full = me.health >= 0.95 * me.maxHealth && me.mana >= 0.95 * me.maxMana;
    if (!this.resting && low) this.figures.rests++;
    this.resting = (this.resting || low) && !full;
    if (this.resting) return this.stop(t);
    const pull = this.pullable(me, mobs, t);
    if (pull) {
      this.targetId = pull.id;
      this.pulledAt = t;
      return this.fight(t, me, pull);
    }
    if (this.planFor !== 'road') this.route(t, GOAL, 'road');
    return this.walk(t);
  }

  /** Whether `m` is after it: it struck lately, or its walk ends at it (or where it walks to). */
  private comingFor(me: Player, m: Mob, t: number): boolean {
    const struck = this.struck.get(m.id);
    if (struck !== undefined && t - struck < 6000) return true;
    if (distance(m, this.pos) > 300) return false;
    const end = m.route?.waypoints.at(-1);
    if (!end) return distance(m, this.pos) <= data.rules.meleeRange + 12;
    if (distance(end, this.pos) <= 40) return true;
    if (this.plan.length === 0) return false;
    // Where it is walking to in a second and a half.
    const ahead = this.along(me.speed * 1.5);
    return distance(end, ahead) <= 40;
  }

  /** The mob it fights now, while that is still a fight: alive, in view, after it, hurt by it or just pulled. */
  private target(me: Player, mobs: Mob[], threats: Mob[], t: number): Mob | undefined {
    const m = mobs.find((x) => x.id === this.targetId);
    if (!m) return undefined;
    if (threats.includes(m) || m.health < m.maxHealth || t - this.pulledAt < 4000) return m;
    return undefined;
  }

  /** The nearest of `mobs`, those in sight first (as Tab picks). */
  private nearest(mobs: Mob[]): Mob {
    return [...mobs].sort(
      (a, b) =>
        Number(!inSight(this.pos, a, walls)) - Number(!inSight(this.pos, b, walls)) ||
        distance(this.pos, a) - distance(this.pos, b) ||
        a.id - b.id,
    )[0]!;
  }

  /** A mob worth pulling: near the road, in sight and reach, not grey, at most two levels above. */
  private pullable(me: Player, mobs: Mob[], t: number): Mob | undefined {
    const fit = mobs.filter(
      (m) =>
        m.level <= me.level + 2 &&
        !isGrey(data.progression, me.level, m.level) &&
        m.health === m.maxHealth &&
        !this.killed.has(m.id) &&
        (this.shunned.get(m.id) ?? -Infinity) < t &&
        distance(this.pos, m) <= FIREBALL.range - 10 &&
        inSight(this.pos, m, walls) &&
        roadDistanceWithin(SPAWN, ROAD_POINTS.slice(1), m, NEAR_ROAD) !== null &&
        // Ahead on the road, not what came back behind it.
        roadPosition(m) >= roadPosition(this.pos) - 40,
    );
    return fit.length === 0 ? undefined : this.nearest(fit);
  }

  /** Fights `target`: heals when hurt, else the rotation; walks into range and sight first. */
  private fight(t: number, me: Player, target: Mob): WorldInput[] {
    this.targetId = target.id;
    const heal = this.healing(me);
    if (heal) return [...this.stop(t), this.cast(heal, me.id)];
    const d = distance(this.pos, target);
    const reach = ARCANE_SHOT.range - 4;
    if (d > reach || !inSight(this.pos, target, walls)) {
      // Closes in: a way round the walls to it, planned again as it moves.
      if (this.planFor !== target.id || t - this.plannedAt >= 500) {
        const at = nearestClear(target, walls, ENTITY_RADIUS, bounds);
        if (!at || !this.route(t, at, target.id)) {
          this.shunned.set(target.id, t + 30_000);
          this.targetId = 0;
          return this.stop(t);
        }
      }
      return this.walk(t);
    }
    const spell = this.rotation(me, target);
    return spell ? [...this.stop(t), this.cast(spell, target.id)] : this.stop(t);
  }

  /** Enough mana, and off cooldown (the client counts cooldowns from its own clock). */
  private ready(me: Player, s: SpellData): boolean {
    return me.mana >= s.manaCost && (me.cooldowns.get(s.id) ?? 0) <= this.clock;
  }

  private healing(me: Player): SpellData | undefined {
    if (me.health >= 0.4 * me.maxHealth) return undefined;
    if (this.ready(me, RENEW)) return RENEW;
    if (this.ready(me, HEAL)) return HEAL;
    return undefined;
  }

  private rotation(me: Player, target: Mob): SpellData | undefined {
    if (this.ready(me, ARCANE_SHOT)) return ARCANE_SHOT;
    // A mob that one Frostbolt surely finishes gets the quicker cast.
    const finish = withSpellPower(data.progression, me.level, FROSTBOLT.min);
    if (target.health <= finish && this.ready(me, FROSTBOLT)) return FROSTBOLT;
    if (this.ready(me, FIREBALL)) return FIREBALL;
    if (this.ready(me, FROSTBOLT)) return FROSTBOLT;
    return undefined;
  }

  private cast(s: SpellData, targetId: number): WorldInput {
    this.figures.casts++;
    return { type: 'cast', entityId: this.id, spellId: s.id, targetId };
  }

  /** Plans a way to `to`; false when there is none. */
  private route(t: number, to: Vec2, what: 'road' | number): boolean {
    const plan = findPath(walls, this.pos, to, ENTITY_RADIUS, bounds);
    this.plannedAt = t;
    this.planFor = what;
    this.plan = plan ?? [];
    return plan !== null;
  }

  /** Where walking `d` more along the plan puts it. */
  private along(d: number): Vec2 {
    let at = this.pos;
    for (const to of this.plan) {
      const seg = distance(at, to);
      if (seg >= d) return { x: at.x + ((to.x - at.x) * d) / seg, y: at.y + ((to.y - at.y) * d) / seg };
      d -= seg;
      at = to;
    }
    return at;
  }

  /** A tick's walk along the plan (a stop at its end), sent as a client sends it. */
  private walk(t: number): WorldInput[] {
    let left = (data.character.speed * TICK) / 1000;
    while (left > 0 && this.plan.length > 0) {
      const to = this.plan[0]!;
      const d = distance(this.pos, to);
      if (d <= left) {
        this.pos = { x: to.x, y: to.y };
        this.plan.shift();
        left -= d;
      } else {
        this.pos = {
          x: this.pos.x + ((to.x - this.pos.x) * left) / d,
          y: this.pos.y + ((to.y - this.pos.y) * left) / d,
        };
        left = 0;
      }
    }
    if (this.plan.length > 0) this.facing = headingTo(this.pos, this.plan[0]!);
    return this.send(t, this.plan.length > 0);
  }

  private stop(t: number): WorldInput[] {
    this.plan = [];
    this.planFor = null;
    return this.send(t, false);
  }

  private send(t: number, moving: boolean): WorldInput[] {
    const s = this.sender.update(t, this.pos.x, this.pos.y, this.facing, moving, data.character.speed);
    if (!s) return [];
    return [
      {
        type: 'move',
        entityId: this.id,
        seq: this.seq++,
        x: s.x,
        y: s.y,
        facing: s.facing,
        moving: s.moving,
        speed: s.speed,
        clientTime: t,
        epoch: this.epoch,
      },
    ];
  }

  /** Standing at the end of the road, nothing after it. */
  arrived(me: Player | undefined): boolean {
    return !!me && this.planFor === 'road' && this.plan.length === 0 && distance(me, GOAL) < 1;
  }
}

/** Plays a new character from the spawn across the border, for at most `minutes` of world time. */
function playthrough(seed: number, minutes: number): Figures {
  const zones = new Zones(seed);
  const [gv, am] = zones.worlds as [World, World];
  const { playerId: id } = joinPlayer(
    gv,
    1,
    { id: 1, name: 'Newcomer', level: 1, appearance: 0, kills: 0 },
    0,
  );
  const me = (): Player | undefined => zones.holding(id)?.players.get(id);
  const player = new NewPlayer(id, gv.players.get(id)!, 0);
  const end = minutes * 60_000;
  let t = 0;
  while (t < end && !(am.players.has(id) && player.arrived(me()))) {
    t += TICK;
    player.observe(zones.tick(t, id, player.decide(t, me())), t);
  }
  const last = me();
  return {
    seed,
    inAshmoor: am.players.has(id),
    alive: last?.alive ?? false,
    level: last?.level ?? 0,
    minutes: Math.round(t / 600) / 100,
    kills: last?.kills ?? 0,
    ...player.figures,
  };
}

describe('a new character plays the first hour', () => {
  // A seed replays exactly, but any change to where the server has a walker (or to this
  // script) replays every seed differently from its first turn on, and which seeds die moves
  // with it: 7 of seeds 1-40 had a death here (12, 15, 23, 25, 30, 32, 38) once turns were
  // placed at their corners, 2 before; 2 (21, 32) once a walker whose inputs stall is held;
  // 1 (5) once a start is placed on the spot it left. Each death was out of mana in a fight
  // that mobs of neighbouring spawn points joined where they meet the road. So every seed must
  // cross alive, and of the five at most one may have died once on the way.
  const BOUND_MINUTES = 60;
  const SEEDS = [1, 2, 3, 4, 5];
  const deaths = new Map<number, number>();

  for (const seed of SEEDS) {
    it(`seed ${seed}: walks the road fighting what it meets and crosses into Ashmoor alive at level 5 or more, within ${BOUND_MINUTES} minutes`, () => {
      const f = playthrough(seed, BOUND_MINUTES);
      deaths.set(seed, f.deaths);
      console.info(
        `playthrough seed ${seed}: ` +
          (f.crossed
            ? `crossed into Ashmoor at level ${f.crossed.level} after ${f.crossed.minutes} min`
            : `did not cross in ${f.minutes} min (level ${f.level})`) +
          `; ${f.kills} kills, ${f.deaths} deaths, ${f.experience} experience, ${f.rests} rests, ` +
          `${f.casts} casts (${f.refusedCasts} refused), ${f.refusedMoves} moves refused; level ` +
          f.levelUps.map(([l, m]) => `${l} at ${m} min`).join(', '),
      );
      expect(f.crossed).not.toBeNull();
      expect(f.crossed!.alive).toBe(true);
      expect(f.crossed!.level).toBeGreaterThanOrEqual(5);
      expect(f.crossed!.minutes).toBeLessThanOrEqual(BOUND_MINUTES);
      expect(f.deaths).toBeLessThanOrEqual(1);
      // It stands in Ashmoor at the end of the road, alive.
      expect([f.inAshmoor, f.alive]).toEqual([true, true]);
      // A client that moves as the rules say is never corrected, and casts only what it may.
      expect(f.refusedMoves).toBe(0);
      expect(f.refusedCasts).toBe(0);
    });
  }

  it('of the five first hours, at most one died on the way, once', () => {
    expect([...deaths.keys()]).toEqual(SEEDS);
    expect([...deaths.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
  });
});
