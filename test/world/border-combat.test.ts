/**
 * Spells across a border on the world level (no sockets, no bus; strips through their bus
 * encoding both ways, as BorderLink sends them): a player casts at a mob of the zone beside,
 * which it sees as a ghost. Its zone shows the hit and sends it with its strip; the mob's own
 * zone applies it; a kill made that way comes back and is credited to the caster.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeStrip, encodeStrip } from '../../server/cluster/border-wire.js';
import { stripStates } from '../../server/world/ghosts.js';
import {
  createWorld,
  loadWorldData,
  mulberry32,
  step,
  type Mob,
  type Player,
  type World,
  type WorldEvent,
  type WorldInput,
} from '../../server/world/index.js';
import { cast, clearRow, join, ofType, player } from './builders.js';

const data = loadWorldData('data');
const [GREENVALE, ASHMOOR] = data.zones as [(typeof data.zones)[0], (typeof data.zones)[0]];
/** Arcane Shot: instant, 220 units, 14-22 damage. */
const SHOT = 3;
/** Renew: an instant heal, 200 units. */
const RENEW = 5;

describe('spells across a border', () => {
  let gv: World;
  let am: World;
  let caster: Player;
  let mob: Mob;
  /** Each zone's strip (with its news) for the other, from the last tick. */
  let toGv: WorldInput[];
  let toAm: WorldInput[];
  let t: number;

  /** What a zone sends the other after its tick: its strip, and the news for that zone, once. */
  function stripFor(from: World, to: typeof GREENVALE): WorldInput {
    const news = from.borderNews.get(to.name);
    from.borderNews.delete(to.name);
    const strip = decodeStrip(encodeStrip(from.zone.name, stripStates(from, to), news));
    return { type: 'strip', ...strip };
  }

  /** One tick of both zones; each gets the other's strip of the tick before. */
  function tickBoth(gvInputs: WorldInput[] = []): { gv: WorldEvent[]; am: WorldEvent[] } {
    t += 50;
    const events = {
      gv: step(gv, [...toGv, ...gvInputs], t, mulberry32(t)).events,
      am: step(am, toAm, t, mulberry32(t + 1)).events,
    };
    toAm = [stripFor(gv, ASHMOOR)];
    toGv = [stripFor(am, GREENVALE)];
    return events;
  }

  beforeEach(() => {
    gv = createWorld(data, { zone: 'Greenvale', rng: mulberry32(1), now: 0 });
    am = createWorld(data, { zone: 'Ashmoor', rng: mulberry32(2), now: 0 });
    toGv = [];
    toAm = [];
    t = 0;
    const y = clearRow([...GREENVALE.obstacles, ...ASHMOOR.obstacles], 1900, 2100, 12);
    caster = join(gv, player({ zone: 'Greenvale', x: 1960, y }));
    // An Ashmoor mob, put just past the line in the caster's sight (nobody in Ashmoor wakes it).
    mob = [...am.mobs.values()].find((m) => m.alive)!;
    mob.x = mob.home.x = 2060;
    mob.y = mob.home.y = y;
    am.mobGrid.update(mob);
    for (let i = 0; i < 3; i++) tickBoth();
    expect(gv.ghosts.get(mob.id)?.entity.kind).toBe('mob');
  });

  it("lands on the mob in its own zone, and the caster's zone shows the hit", () => {
    const before = mob.health;
    const seen: WorldEvent[] = [];
    const there: WorldEvent[] = [];
    let events = tickBoth([cast(caster.id, SHOT, mob.id)]);
    expect(ofType(events.gv, 'castRefused')).toEqual([]);
    expect(ofType(events.gv, 'spellLaunched').map((e) => e.targetId)).toEqual([mob.id]);
    for (let i = 0; i < 10; i++) {
      events = tickBoth();
      seen.push(...events.gv);
      there.push(...events.am);
    }
    const hit = ofType(seen, 'spellHit')[0]!;
    expect(hit).toMatchObject({ sourceId: caster.id, effect: 'damage' });
    expect(hit.target.id).toBe(mob.id);
    expect(hit.witnesses).toContain(caster.id);
    // Applied once, in Ashmoor, by the caster's id, with the amount the caster's zone rolled.
    expect(mob.health).toBe(before - hit.amount);
    expect(ofType(there, 'spellHit').map((e) => [e.sourceId, e.amount])).toEqual([[caster.id, hit.amount]]);
    // Its health comes back across with the strip.
    expect(gv.ghosts.get(mob.id)?.entity.health).toBe(mob.health);
    // The mob turns on the caster, on its own ground.
    expect([mob.state, mob.targetId]).toEqual(['chase', caster.id]);
    expect(mob.x).toBeGreaterThanOrEqual(2000);
  });

  it('comes to the line when hit from across it, and its blows land on the caster in its own zone', () => {
    const near = join(gv, player({ zone: 'Greenvale', x: 1992, y: caster.y + 30 }));
    tickBoth();
    tickBoth([cast(near.id, SHOT, mob.id)]);
    // (Greenvale's own mobs may join in: only the Ashmoor mob's blows are counted.)
    const fromMob = (events: WorldEvent[]) =>
      ofType(events, 'spellHit').filter((e) => e.target.id === near.id && e.sourceId === mob.id);
    let blow;
    for (let i = 0; i < 80 && !blow; i++) {
      const health = near.health;
      const hits = ofType(tickBoth().gv, 'spellHit').filter((e) => e.target.id === near.id);
      blow = fromMob(hits)[0];
      if (blow) expect(near.health).toBe(health - hits.reduce((sum, b) => sum + b.amount, 0));
    }
    expect(blow).toMatchObject({ sourceId: mob.id, spellId: 0, effect: 'damage' });
    // It never left its zone.
    expect(mob.x).toBeGreaterThanOrEqual(2000);
  });

  it('credits the caster with a kill made across the line', () => {
    mob.health = 1;
    tickBoth();
    tickBoth([cast(caster.id, SHOT, mob.id)]);
    const there: WorldEvent[] = [];
    const here: WorldEvent[] = [];
    for (let i = 0; i < 10; i++) {
      const events = tickBoth();
      there.push(...events.am);
      here.push(...events.gv);
    }
    expect(mob.alive).toBe(false);
    expect(ofType(there, 'died').map((e) => [e.entity.id, e.killerId])).toEqual([[mob.id, caster.id]]);
    expect(caster.kills).toBe(1);
    expect(ofType(here, 'statsChanged').some((e) => e.player === caster)).toBe(true);
    expect(gv.ghosts.get(mob.id)?.entity.alive).toBe(false);
  });

  it('refuses a ghost out of range or of the wrong kind, as it would its own', () => {
    // In the strip, out of range.
    mob.x = 2250;
    am.mobGrid.update(mob);
    tickBoth();
    tickBoth();
    expect(gv.ghosts.get(mob.id)?.entity.x).toBe(2250);
    let events = tickBoth([cast(caster.id, SHOT, mob.id)]);
    expect(ofType(events.gv, 'castRefused').map((e) => e.reason)).toEqual(['outOfRange']);
    // A damage spell at a player across the line is refused like one at a player here.
    const other = join(am, player({ zone: 'Ashmoor', x: 2030, y: caster.y }));
    tickBoth();
    tickBoth();
    expect(gv.ghosts.has(other.id)).toBe(true);
    events = tickBoth([cast(caster.id, SHOT, other.id)]);
    expect(ofType(events.gv, 'castRefused').map((e) => e.reason)).toEqual(['badTarget']);
  });

  it('heals a player across the line in its own zone', () => {
    // The mob well away, so it does not fight the player it would wake.
    mob.x = 3000;
    am.mobGrid.update(mob);
    const other = join(am, player({ zone: 'Ashmoor', x: 2030, y: caster.y }));
    other.health = 50;
    tickBoth();
    tickBoth();
    tickBoth([cast(caster.id, RENEW, other.id)]);
    const there: WorldEvent[] = [];
    for (let i = 0; i < 6; i++) there.push(...tickBoth().am);
    const healed = ofType(there, 'spellHit');
    expect(healed.map((e) => [e.sourceId, e.effect, e.target.id])).toEqual([[caster.id, 'heal', other.id]]);
    expect(other.health).toBe(Math.min(other.maxHealth, 50 + healed[0]!.amount));
  });
});
