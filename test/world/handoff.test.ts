/**
 * Hand-off on the world level: two zones side by side exchanging strips and hand-offs as
 * their host does (no sockets). A walker crosses from Greenvale into Ashmoor while a player
 * on each side watches: neither loses it, it keeps its id and its walk, and no move of it is
 * refused.
 */
import { describe, expect, it } from 'vitest';
import { decodeHandoff, decodeStrip, encodeHandoff, encodeStrip } from '../../server/cluster/border-wire.js';
import { stripStates } from '../../server/world/ghosts.js';
import { HANDOFF_MARGIN } from '../../server/world/handoff.js';
import {
  createWorld,
  loadWorldData,
  mulberry32,
  savedCharacter,
  step,
  type World,
  type WorldEvent,
  type WorldInput,
} from '../../server/world/index.js';
import { clearRow, join, move, player, walker } from './builders.js';

const data = loadWorldData('data');
const [GREENVALE, ASHMOOR] = data.zones as [(typeof data.zones)[0], (typeof data.zones)[0]];

/** A row y where a walker and an observer can stand on both sides of x = 2000, clear of walls. */
const clearRowHere = (): number => clearRow([...GREENVALE.obstacles, ...ASHMOOR.obstacles], 1500, 2500, 40);

/** Both zones as one host runs them: strips and hand-offs cross after each tick, taken at the next. */
class TwoZones {
  readonly gv: World;
  readonly am: World;
  private pending: { gv: WorldInput[]; am: WorldInput[] } = { gv: [], am: [] };

  constructor() {
    const open = ['Greenvale', 'Ashmoor'];
    this.gv = createWorld(data, { zone: 'Greenvale', rng: mulberry32(1), now: 0, openBorders: open });
    this.am = createWorld(data, { zone: 'Ashmoor', rng: mulberry32(2), now: 0, openBorders: open });
  }

  tick(t: number, inputs: { gv?: WorldInput[]; am?: WorldInput[] }): { gv: WorldEvent[]; am: WorldEvent[] } {
    const gvIn = [...this.pending.gv, ...(inputs.gv ?? [])];
    const amIn = [...this.pending.am, ...(inputs.am ?? [])];
    const gv = step(this.gv, gvIn, t, mulberry32(t)).events;
    const am = step(this.am, amIn, t, mulberry32(t + 1)).events;
    this.pending = { gv: [], am: [] };
    const cross = (
      from: World,
      events: WorldEvent[],
      to: WorldInput[],
      name: string,
      beside: typeof ASHMOOR,
    ) => {
      for (const e of events) {
        // Over the wire, as between two hosts.
        if (e.type === 'handedOff')
          to.push({ type: 'arrive', sessionId: e.sessionId, state: decodeHandoff(encodeHandoff(e.state)) });
      }
      const s = decodeStrip(encodeStrip(name, stripStates(from, beside)));
      to.push({ type: 'strip', from: s.from, entities: s.entities });
    };
    cross(this.gv, gv, this.pending.am, 'Greenvale', ASHMOOR);
    cross(this.am, am, this.pending.gv, 'Ashmoor', GREENVALE);
    return { gv, am };
  }
}

describe('hand-off at the border', () => {
  it('hands a walker across to the next zone under the same id, watched without a break from both sides, with no move refused', () => {
    const zones = new TwoZones();
    const y = clearRowHere();
    const w = join(zones.gv, player({ zone: 'Greenvale', x: 1940, y }));
    const west = join(zones.gv, player({ zone: 'Greenvale', x: 1860, y: y + 30 }));
    const east = join(zones.am, player({ zone: 'Ashmoor', x: 2140, y: y + 30 }));
    zones.tick(50, {});
    zones.tick(100, {});
    expect(west.visible.has(w.id)).toBe(true);
    expect(east.visible.has(w.id)).toBe(true);

    const walk = walker(w, 0, 100);
    const lost: string[] = [];
    const refused: WorldEvent[] = [];
    let handedAt = 0;
    for (let t = 150; t <= 1500; t += 50) {
      // The walker's inputs go to whichever zone holds it now.
      const input = walk.at(t);
      const here = zones.gv.players.has(w.id) ? 'gv' : 'am';
      const ev = zones.tick(t, { [here]: [input] });
      for (const e of [...ev.gv, ...ev.am]) {
        if (e.type === 'moveRefused' && e.player.id === w.id) refused.push(e);
        if (e.type === 'handedOff') handedAt = t;
        if ((e.type === 'unseen' && e.entityId === w.id) || (e.type === 'removed' && e.entity.id === w.id)) {
          lost.push(`${e.type} at ${t}`);
        }
      }
      expect(west.visible.has(w.id)).toBe(true);
      expect(east.visible.has(w.id)).toBe(true);
    }
    expect(lost).toEqual([]);
    expect(refused.map((e) => e.type === 'moveRefused' && [e.reason, e.x, e.y])).toEqual([]);
    expect(handedAt).toBeGreaterThan(0);
    const now = zones.am.players.get(w.id)!;
    expect(now).toBeDefined();
    expect(zones.gv.players.has(w.id)).toBe(false);
    expect(now.x).toBeGreaterThan(2000 + HANDOFF_MARGIN);
    expect(now.moving).toBe(true);
    // Greenvale keeps it as Ashmoor's ghost, moving with it (a tick behind: the strip comes after the tick).
    expect(zones.gv.ghosts.get(w.id)?.from).toBe('Ashmoor');
    expect(Math.abs(zones.gv.ghosts.get(w.id)!.entity.x - now.x)).toBeLessThanOrEqual(
      (now.speed * 50) / 1000 + 1,
    );
  });

  it('carries experience, level and kills across (over the wire), with the level’s max health and mana', () => {
    const zones = new TwoZones();
    const y = clearRowHere();
    const w = join(zones.gv, player({ zone: 'Greenvale', x: 1940, y, level: 3, experience: 321, kills: 12 }));
    zones.tick(50, {});
    const walk = walker(w, 0, 50);
    for (let t = 100; t <= 1500 && !zones.am.players.has(w.id); t += 50) {
      const here = zones.gv.players.has(w.id) ? 'gv' : 'am';
      zones.tick(t, { [here]: [walk.at(t)] });
    }
    const there = zones.am.players.get(w.id)!;
    expect(there).toBeDefined();
    const level3 = data.progression.levels[2]!;
    expect([there.level, there.experience, there.kills]).toEqual([3, 321, 12]);
    expect([there.maxHealth, there.maxMana]).toEqual([level3.maxHealth, level3.maxMana]);
    expect(savedCharacter(zones.am, there)).toMatchObject({ zone: 'Ashmoor', level: 3, experience: 321 });
  });

  it('carries the inputs still waiting for their time across, and what they were held by: a stop made just past the line is kept', () => {
    const zones = new TwoZones();
    const y = clearRowHere();
    const w = join(zones.gv, player({ zone: 'Greenvale', x: 1940, y }));
    zones.tick(50, {});
    const walk = walker(w, 0, 100);
    // The first input came 300 ms late: the walk takes effect 300 ms behind its client's clock.
    const sends: { input: WorldInput; arrives: number }[] = [];
    for (let t = 100; t < 800; t += 100) sends.push({ input: walk.at(t), arrives: t === 100 ? 400 : t + 20 });
    sends.push({ input: walk.at(800, false), arrives: 820 });
    const stop = walk.at(800, false) as Extract<WorldInput, { type: 'move' }>;
    let handedAt = 0;
    for (let t = 150; t <= 2500; t += 50) {
      const here = zones.gv.players.has(w.id) ? 'gv' : 'am';
      const due = sends.filter((s) => s.arrives > t - 50 && s.arrives <= t);
      const ev = zones.tick(t, { [here]: due.map((s) => ({ ...s.input, receivedAt: s.arrives })) });
      if (ev.gv.some((e) => e.type === 'handedOff')) handedAt = t;
    }
    // Handed off after the stop arrived (it was waiting in Greenvale's queue), and Ashmoor took it.
    expect(handedAt).toBeGreaterThan(820);
    const p = zones.am.players.get(w.id)!;
    expect(p.moving).toBe(false);
    expect([p.x, p.y]).toEqual([stop.x, stop.y]);
    // And the grounds of its offset: the 300 ms late start still holds its inputs 280 ms.
    expect(p.timeline.held).toBe(280);
    expect(p.timeline.lateness.most() - p.timeline.lateness.least()).toBe(280);
  });

  it('tells the next zone’s watchers a stop made in the very input that carries the walker across: they see it stand where it stands', () => {
    const zones = new TwoZones();
    const y = clearRowHere();
    const w = join(zones.gv, player({ zone: 'Greenvale', x: 1940, y }));
    const east = join(zones.am, player({ zone: 'Ashmoor', x: 2140, y: y + 30 }));
    zones.tick(50, {});
    const walk = walker(w, 0, 100);
    // Heartbeats up to x 1990, then the next input is the stop, 30 units on, past the margin
    // (a client sends its stop when it stops, not at the line).
    const inputs = new Map<number, WorldInput>();
    for (let t = 100; t <= 500; t += 100) inputs.set(t + 50, walk.at(t));
    const stop = walk.at(800, false) as Extract<WorldInput, { type: 'move' }>;
    inputs.set(850, stop);
    /** What Ashmoor last told of the walker: its motion state (a ghost's, then its own). */
    let told: { x: number; y: number; moving: boolean } | undefined;
    for (let t = 100; t <= 2500; t += 50) {
      const here = zones.gv.players.has(w.id) ? 'gv' : 'am';
      const input = inputs.get(t);
      const ev = zones.tick(t, input ? { [here]: [input] } : {});
      for (const e of ev.am) {
        if (e.type === 'motion' && e.entity.id === w.id) told = { ...e.entity.sent };
      }
    }
    const p = zones.am.players.get(w.id)!;
    expect([p.x, p.y, p.moving]).toEqual([stop.x, stop.y, false]);
    expect(east.visible.has(w.id)).toBe(true);
    expect(told).toMatchObject({ x: stop.x, y: stop.y, moving: false });
  });

  it('hands a walker whose turn was placed at its corner over where its client is: its next move is not refused', () => {
    const zones = new TwoZones();
    const y = clearRowHere();
    const w = join(zones.gv, player({ zone: 'Greenvale', x: 1940, y }));
    zones.tick(50, {});
    const walk = walker(w, 0, 100);
    for (const t of [100, 350, 600]) zones.tick(t, { gv: [walk.at(t)] });
    // East to 2020.4 (past the margin) at 770, then south; the frame that saw the key took
    // 100 ms, so the turn comes from 12 units south of the corner, where it is placed.
    const corner = (walk.at(770) as { x: number }).x;
    const south = Math.PI / 2;
    const turn = move(w, corner, y + 12, { t: 870, moving: true, facing: south });
    const handed = zones.tick(870, { gv: [turn] });
    expect(handed.gv.some((e) => e.type === 'handedOff')).toBe(true);
    // A heartbeat 250 ms on, 30 units further south: 42 units from the corner.
    const beat = move(w, corner, y + 42, { t: 1120, moving: true, facing: south });
    const next = zones.tick(1120, { am: [beat] });
    const there = zones.am.players.get(w.id)!;
    expect(next.am.filter((e) => e.type === 'moveRefused')).toEqual([]);
    expect(there.lastInput).toEqual({ x: corner, y: y + 42 });
    expect(there.y).toBeCloseTo(y + 42, 6);
  });

  it('does not hand back a player standing on the line: it must walk the margin past it the other way', () => {
    const zones = new TwoZones();
    const y = clearRowHere();
    const w = join(zones.gv, player({ zone: 'Greenvale', x: 1990, y }));
    zones.tick(50, {});
    const walk = walker(w, 0, 50, 60);
    let t = 100;
    for (; zones.gv.players.has(w.id); t += 50) zones.tick(t, { gv: [walk.at(t)] });
    zones.tick((t += 50), {});
    const p = zones.am.players.get(w.id)!;
    // Back over the line, but less than the margin: it stays Ashmoor's.
    const back = walker(p, Math.PI, t, 60);
    const until = t + ((p.x - (2000 - HANDOFF_MARGIN / 2)) / 60) * 1000;
    for (t += 50; t <= until; t += 50) zones.tick(t, { am: [back.at(t)] });
    zones.tick(t, { am: [back.at(t - 50, false)] });
    expect(zones.am.players.get(w.id)!.x).toBeLessThan(2000);
    expect(zones.am.players.has(w.id)).toBe(true);
    expect(zones.gv.players.has(w.id)).toBe(false);
  });

  it('keeps the border closed where no hand-off can go: a move past the line is refused', () => {
    const gv = createWorld(data, { zone: 'Greenvale', rng: mulberry32(1), now: 0 });
    const y = clearRowHere();
    const w = join(gv, player({ zone: 'Greenvale', x: 1985, y }));
    const events = step(gv, [walker(w, 0, 0).at(200)], 200, mulberry32(3)).events;
    expect(events.some((e) => e.type === 'moveRefused' && e.reason === 'bounds')).toBe(true);
  });
});
