/**
 * Small builders for world tests: a 1000 × 1000 zone with one wall, short timers, no crits,
 * mobs that stay put unless a test lets them wander, movement states as an honest client
 * sends them, and helpers to read events: messages by recipient, domain events by type.
 */
import { blocked, type Rect } from '../../shared/game/movement.js';
import { MOB_ID_BASE } from '../../shared/protocol/index.js';
import {
  createWorld,
  joinPlayer,
  mulberry32,
  step,
  type MobSpawnPoint,
  type MobTemplate,
  type Player,
  type Rng,
  type SavedCharacter,
  type SpellData,
  type World,
  type WorldData,
  type WorldEvent,
  type WorldEventType,
  type WorldInput,
  type WorldRules,
  type ZoneData,
} from '../../server/world/index.js';
import {
  messages,
  type Message,
  type MessageOf,
  type MessageSink,
  type PacketName,
} from '../../server/outbox/messages.js';

export const FIREBALL = 1;
export const INSTANT = 2;
export const HEAL = 3;
export const SLOW_CD = 4;

export function rules(over: Partial<WorldRules> = {}): WorldRules {
  return {
    cellSize: 100,
    interestRadius: 250,
    interestMargin: 1.15,
    cellHysteresis: 16,
    moveBurstMs: 1000,
    sayRange: 150,
    chatBurst: 3,
    chatPerSecond: 1,
    logoutDelay: 1000,
    corpseTime: 500,
    playerRespawnDelay: 1000,
    manaRegenInterval: 1e9,
    manaRegenAmount: 5,
    healthRegenAmount: 0,
    restDelay: 5000,
    restHealthPercent: 0,
    restManaPercent: 0,
    respawnHealthPercent: 100,
    respawnManaPercent: 0,
    critChance: 0,
    critMultiplier: 1.5,
    meleeRange: 22,
    leashDistance: 300,
    rechaseDistance: 24,
    wanderPauseMin: 1e9,
    wanderPauseMax: 1e9,
    wanderWaypoints: 3,
    ...over,
  };
}

export function spell(over: Partial<SpellData> & { id: number }): SpellData {
  return {
    name: `Spell ${over.id}`,
    kind: 'damage',
    castTime: 1000,
    cooldown: 0,
    manaCost: 10,
    range: 200,
    projectileSpeed: 100,
    min: 30,
    max: 30,
    colour: 0xff0000,
    ...over,
  };
}

export function template(over: Partial<MobTemplate> = {}): MobTemplate {
  return {
    id: 1,
    name: 'Wolf',
    minLevel: 2,
    maxLevel: 4,
    health: 50,
    speed: 100,
    wanderRadius: 60,
    aggroRadius: 60,
    meleeMin: 5,
    meleeMax: 5,
    swingTime: 1000,
    respawnTime: 2000,
    appearance: 1,
    colour: 0x888888,
    ...over,
  };
}

export function zone(over: Partial<ZoneData> = {}): ZoneData {
  return {
    name: 'Testzone',
    number: 1,
    x: 0,
    y: 0,
    width: 1000,
    height: 1000,
    obstacles: [{ x: 500, y: 0, w: 20, h: 400 }],
    playerSpawn: { x: 100, y: 100 },
    graveyard: { x: 50, y: 900 },
    spawns: [],
    ...over,
  };
}

export interface WorldOptions {
  mobs?: MobSpawnPoint[];
  templates?: MobTemplate[];
  spells?: SpellData[];
  rules?: Partial<WorldRules>;
  zone?: Partial<ZoneData>;
  mana?: number;
  seed?: number;
}

export function worldData(o: WorldOptions = {}): WorldData {
  const spells = o.spells ?? [
    spell({ id: FIREBALL, name: 'Fireball', castTime: 1000, manaCost: 10, range: 200, projectileSpeed: 100 }),
    spell({
      id: INSTANT,
      name: 'Zap',
      castTime: 0,
      manaCost: 5,
      cooldown: 3000,
      projectileSpeed: 0,
      min: 10,
      max: 10,
    }),
    spell({
      id: HEAL,
      name: 'Mend',
      kind: 'heal',
      castTime: 0,
      manaCost: 5,
      projectileSpeed: 0,
      min: 20,
      max: 20,
    }),
    spell({ id: SLOW_CD, name: 'Bolt', castTime: 500, cooldown: 5000, manaCost: 10 }),
  ];
  const templates = o.templates ?? [template()];
  return {
    spells: new Map(spells.map((s) => [s.id, s])),
    templates: new Map(templates.map((t) => [t.id, t])),
    character: { level: 1, health: 100, mana: o.mana ?? 100, speed: 120, spells: spells.map((s) => s.id) },
    rules: rules(o.rules),
    zones: [zone({ ...o.zone, spawns: o.mobs ?? o.zone?.spawns ?? [] })],
  };
}

export function world(o: WorldOptions = {}): World {
  return createWorld(worldData(o), { rng: mulberry32(o.seed ?? 1), now: 0 });
}

/** One mob spawn point (count 1) at x, y. */
export function mobAt(x: number, y: number, templateId = 1): MobSpawnPoint {
  return { template: templateId, x, y, count: 1 };
}

/** The n-th mob created (spawn points in order, counts expanded). */
export function mobId(n = 0): number {
  return MOB_ID_BASE + n;
}

let nextCharacter = 1;
export function player(over: Partial<SavedCharacter> = {}): SavedCharacter {
  const id = nextCharacter++;
  return { id, name: `Hero${id}`, level: 1, appearance: 0, kills: 0, ...over };
}

/** Joins a character and runs one step at `now` so its view is built; returns the entity. */
export function join(w: World, c: SavedCharacter = player(), now = w.now): Player {
  const { playerId } = joinPlayer(w, 1000 + c.id, c, now);
  tick(w, [], now);
  return w.players.get(playerId)!;
}

export function tick(w: World, inputs: WorldInput[], now: number, rng: Rng = mulberry32(now)): WorldEvent[] {
  return step(w, inputs, now, rng).events;
}

/** Steps every `dt` ms up to and including `until`, collecting events. */
export function runUntil(w: World, until: number, dt = 50): WorldEvent[] {
  const out: WorldEvent[] = [];
  for (let t = w.now + dt; t <= until; t += dt) out.push(...tick(w, [], t));
  return out;
}

export interface MoveOptions {
  /** The client's clock when it made the input (ms); a client in step with the server sends the step's time. */
  t: number;
  /** Counts up by itself unless given. */
  seq?: number;
  facing?: number;
  /** Standing unless told. */
  moving?: boolean;
  /** Units per second while moving; the character's speed unless told. */
  speed?: number;
}

let nextSeq = 1;

/** A movement state: `p` is at (x, y) at client time `t`, standing unless `moving`. */
export function move(p: Player, x: number, y: number, o: MoveOptions): WorldInput {
  const moving = o.moving ?? false;
  return {
    type: 'move',
    entityId: p.id,
    seq: o.seq ?? nextSeq++,
    x,
    y,
    facing: o.facing ?? 0,
    moving,
    speed: o.speed ?? (moving ? p.speed : 0),
    clientTime: o.t,
  };
}

/** A cast input: `entityId` casts `spellId` at `targetId`. */
export function cast(entityId: number, spellId: number, targetId: number): WorldInput {
  return { type: 'cast', entityId, spellId, targetId };
}

/**
 * An honest client walking `p` in a straight line along `angle` at `speed`, from where it
 * stands at client time `t0`: `at(t)` is its movement state at client time t (a start, a
 * heartbeat or, with `moving` false, a stop), positions exactly where its walk puts it.
 */
export function walker(
  p: Player,
  angle: number,
  t0: number,
  speed = p.speed,
): { at: (t: number, moving?: boolean) => WorldInput } {
  const x0 = p.x;
  const y0 = p.y;
  return {
    at: (t, moving = true) => {
      const d = (speed * (t - t0)) / 1000;
      return {
        type: 'move',
        entityId: p.id,
        seq: nextSeq++,
        x: x0 + Math.cos(angle) * d,
        y: y0 + Math.sin(angle) * d,
        facing: angle,
        moving,
        speed: moving ? speed : 0,
        clientTime: t,
      };
    },
  };
}

/** A message the events become (server/outbox/messages.ts), and who gets it. */
export interface Delivery {
  to: readonly number[] | 'zone';
  msg: Message;
}

/**
 * The messages `events` become, in order, through the replication writer's own mapping.
 * Entering players' messages (ZoneInfo, EnterWorld...) need the world they entered: pass `w`.
 * Entity state (motion, path, health, died, respawned, removed) goes as records to whoever
 * views the entity's cell when the step ends, which the replication writer works out: read
 * it with `ofType`.
 */
export function deliveries(events: readonly WorldEvent[], w?: World): Delivery[] {
  const out: Delivery[] = [];
  const sink: MessageSink = {
    to: (id, msg) => out.push({ to: [id], msg }),
    toEach: (ids, also, msg) => out.push({ to: also === 0 ? ids : [...ids, also], msg }),
    toZone: (msg) => out.push({ to: 'zone', msg }),
  };
  for (const e of events) {
    if (e.type === 'entered' && !w) continue;
    messages(w!, { tick: w?.tick ?? 0, time: w?.now ?? 0 }, e, sink);
  }
  return out;
}

/** Payloads of `packet` in the events, whoever they go to. */
export function sent<N extends PacketName>(
  events: WorldEvent[],
  packet: N,
  w?: World,
): MessageOf<N>['data'][] {
  return deliveries(events, w).flatMap((d) =>
    d.msg.packet === packet ? [d.msg.data as MessageOf<N>['data']] : [],
  );
}

/** Payloads of `packet` that reach player `playerId`. */
export function received<N extends PacketName>(
  events: WorldEvent[],
  playerId: number,
  packet: N,
  w?: World,
): MessageOf<N>['data'][] {
  return deliveries(events, w).flatMap((d) =>
    d.msg.packet === packet && (d.to === 'zone' || d.to.includes(playerId))
      ? [d.msg.data as MessageOf<N>['data']]
      : [],
  );
}

/** The domain events of one type, in order. */
export function ofType<T extends WorldEventType>(
  events: WorldEvent[],
  type: T,
): Extract<WorldEvent, { type: T }>[] {
  return events.filter((e): e is Extract<WorldEvent, { type: T }> => e.type === type);
}

/** Ids of the entities `observerId` started seeing, in order. */
export function seenBy(events: WorldEvent[], observerId: number): number[] {
  return ofType(events, 'seen').flatMap((e) => (e.observerId === observerId ? [e.entity.id] : []));
}

/** Ids of the entities `observerId` stopped seeing, in order. */
export function unseenBy(events: WorldEvent[], observerId: number): number[] {
  return ofType(events, 'unseen').flatMap((e) => (e.observerId === observerId ? [e.entityId] : []));
}

/**
 * Steps like runUntil, calling `each` after every step with its events while the world is as
 * that step left it (domain events carry live entities: read their state there).
 */
export function runEach(w: World, until: number, each: (events: WorldEvent[]) => void, dt = 50): void {
  for (let t = w.now + dt; t <= until; t += dt) each(tick(w, [], t));
}

/** A row y (from 300 down, every 10) clear of `walls` by `radius` all along x in [x0, x1]. */
export function clearRow(walls: readonly Rect[], x0: number, x1: number, radius: number): number {
  for (let y = 300; y < 1700; y += 10) {
    let clear = true;
    for (let x = x0; x <= x1 && clear; x += 4) clear = !blocked({ x, y }, walls, radius);
    if (clear) return y;
  }
  throw new Error('no clear row');
}
