/**
 * The border strip between two zones on the world level (no sockets, no bus): each tick the
 * walker's zone sends its strip, through the bus encoding, to the zone beside it, whose
 * player sees the neighbour's entities as ghosts: spawned, moving, gone once out of reach.
 */
import { describe, expect, it } from 'vitest';
import { decodeStrip, encodeStrip } from '../../server/cluster/border-wire.js';
import { stripDepth } from '../../server/world/border.js';
import { ghostState, stripStates } from '../../server/world/ghosts.js';
import {
  createWorld,
  loadWorldData,
  mulberry32,
  step,
  type World,
  type WorldEvent,
  type WorldInput,
} from '../../server/world/index.js';
import { clearRow, join, player, walker } from './builders.js';

const data = loadWorldData('data');
const [GREENVALE, ASHMOOR] = data.zones as [(typeof data.zones)[0], (typeof data.zones)[0]];

/** A row y where a walker and an observer can stand on both sides of x = 2000, clear of walls. */
const clearRowHere = (): number => clearRow([...GREENVALE.obstacles, ...ASHMOOR.obstacles], 1500, 2300, 12);

function pair(): { gv: World; am: World } {
  return {
    gv: createWorld(data, { zone: 'Greenvale', rng: mulberry32(1), now: 0 }),
    am: createWorld(data, { zone: 'Ashmoor', rng: mulberry32(2), now: 0 }),
  };
}

/** One tick of both zones at `t`: the walker's zone steps, its strip crosses (encoded), then the other steps. */
function tickBoth(gv: World, am: World, t: number, gvInputs: WorldInput[]): WorldEvent[] {
  step(gv, gvInputs, t, mulberry32(t));
  const strip = decodeStrip(encodeStrip('Greenvale', stripStates(gv, ASHMOOR)));
  return step(am, [{ type: 'strip', from: strip.from, entities: strip.entities }], t, mulberry32(t)).events;
}

describe('the border strip', () => {
  it("shows a player across the border the neighbour's walker and mobs near the line, moving, and drops them once out of reach", () => {
    const { gv, am } = pair();
    const y = clearRowHere();
    const w = join(gv, player({ zone: 'Greenvale', x: 1900, y }));
    const o = join(am, player({ zone: 'Ashmoor', x: 2100, y }));
    let events = tickBoth(gv, am, 50, []);
    expect(o.visible.has(w.id)).toBe(true);
    expect(events.some((e) => e.type === 'seen' && e.observerId === o.id && e.entity.id === w.id)).toBe(true);
    // Greenvale's mobs within the observer's view are there too, under their own ids.
    const mobsNear = [...gv.mobs.values()].filter((m) => m.alive && Math.hypot(m.x - o.x, m.y - o.y) < 200);
    for (const m of mobsNear) expect(o.visible.has(m.id)).toBe(true);
    // Ghosts are not the zone's own: no player or mob table holds them, no mob may aggro on them.
    expect(am.players.has(w.id)).toBe(false);
    expect(am.ghosts.get(w.id)?.from).toBe('Greenvale');

    // The walker heads west, away from the line: motion goes out as the walker's own host sends it.
    const walk = walker(w, Math.PI, 50);
    let motions = 0;
    let gone = false;
    for (let t = 100; t <= 6000 && !gone; t += 50) {
      events = tickBoth(gv, am, t, [walk.at(t)]);
      motions += events.filter((e) => e.type === 'motion' && e.entity.id === w.id).length;
      const ghost = am.ghosts.get(w.id)?.entity;
      if (ghost) expect(Math.abs(ghost.x - w.x)).toBeLessThan(1);
      gone = events.some((e) => e.type === 'unseen' && e.observerId === o.id && e.entityId === w.id);
    }
    expect(motions).toBeGreaterThan(0);
    expect(gone).toBe(true);
    expect(o.visible.has(w.id)).toBe(false);
    // Past the strip's depth it is no ghost at all.
    for (let t = 6050; w.x > 2000 - stripDepth(data.rules) - 50; t += 50) tickBoth(gv, am, t, [walk.at(t)]);
    tickBoth(gv, am, 99_000, []);
    expect(am.ghosts.has(w.id)).toBe(false);
  });

  it('sends only what lies within the strip depth of the neighbour', () => {
    const { gv } = pair();
    const depth = stripDepth(data.rules);
    for (const s of stripStates(gv, ASHMOOR)) expect(s.x).toBeGreaterThanOrEqual(2000 - depth);
    expect(stripStates(gv, ASHMOOR).length).toBeGreaterThan(0);
  });

  it('carries a strip through its bus encoding intact, and refuses bytes that are not one', () => {
    const { gv } = pair();
    const y = clearRowHere();
    join(gv, player({ zone: 'Greenvale', x: 1900, y }));
    const states = stripStates(gv, ASHMOOR);
    const bytes = encodeStrip('Greenvale', states);
    const back = decodeStrip(bytes);
    expect(back.from).toBe('Greenvale');
    expect(back.entities.map((e) => [e.id, e.kind, e.name, e.alive])).toEqual(
      states.map((e) => [e.id, e.kind, e.name, e.alive]),
    );
    for (let i = 0; i < states.length; i++) {
      expect(back.entities[i]!.x).toBeCloseTo(states[i]!.x, 2);
      expect(back.entities[i]!.y).toBeCloseTo(states[i]!.y, 2);
    }
    expect(() => decodeStrip(bytes.subarray(0, bytes.length - 1))).toThrow();
    expect(() => decodeStrip(Uint8Array.of(...bytes, 0))).toThrow(/past its end/);
    expect(ghostState(gv.players.values().next().value!).sent).not.toBeNull();
    // With news for the zone beside: hits and kills come through as they went.
    const news = {
      hits: [
        { sourceId: 7, targetId: 0x80001, spellId: 3, effect: 'damage' as const, amount: 21, crit: true },
        { sourceId: 7, targetId: 9, spellId: 5, effect: 'heal' as const, amount: 30, crit: false },
      ],
      kills: [{ killerId: 7, victimId: 0x80001, victimLevel: 6 }],
    };
    const withNews = decodeStrip(encodeStrip('Greenvale', states, news));
    expect({ hits: withNews.hits, kills: withNews.kills }).toEqual(news);
    expect(withNews.entities).toHaveLength(states.length);
  });
});
