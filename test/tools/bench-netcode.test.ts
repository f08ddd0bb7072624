import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGroup, startBenchServer, type BenchLeg, type BenchServer } from '../../bench/netcode/harness.js';
import {
  figures,
  ServerRecord,
  type PlayerRecord,
  type WatcherFrame,
} from '../../web-client/src/state/truth.js';
import { CLEAN_LINK } from '../../web-client/src/state/link-lab.js';

const walker = (over: Partial<PlayerRecord>): PlayerRecord => ({
  x: 0,
  y: 0,
  inputAt: 0,
  moving: false,
  facing: 0,
  moveSpeed: 0,
  alive: true,
  ...over,
});

/** Walks east at 100 units/s from x = 0 at t = 1000 and stops at x = 100 at t = 2000. */
function eastThenStop(): ServerRecord {
  const record = new ServerRecord();
  record.observe(walker({}), 'West', 0);
  record.observe(walker({ inputAt: 1000, moving: true, moveSpeed: 100 }), 'West', 1000);
  record.observe(walker({ x: 50, inputAt: 1500, moving: true, moveSpeed: 100 }), 'West', 1500);
  record.observe(walker({ x: 100, inputAt: 2000 }), 'West', 2000);
  return record;
}

const frame = (t: number, x: number): WatcherFrame => ({ t, serverNow: t + 100, x, y: 0 });

describe('netcode bench figures', () => {
  it('a watcher drawing where the server had the mover has no error, overshoot or slide-back', () => {
    const frames = [1200, 1500, 1900, 2000, 2100, 2500].map((t) =>
      frame(t, Math.min(100, Math.max(0, (t - 1000) / 10))),
    );
    const f = figures(eastThenStop(), frames, 0);
    expect(f.error.max).toBeCloseTo(0, 9);
    expect(f.stops).toBe(1);
    expect(f.overshoot.max).toBe(0);
    expect(f.slideBacks).toBe(0);
    expect(f.baseDelayMs).toBe(100);
    expect(f.addedDelayMs).toBeCloseTo(0, 6);
  });

  it('counts a watcher running past the stop and pulled back as an overshoot and a slide-back', () => {
    const frames = [frame(1900, 90), frame(2000, 100), frame(2100, 110), frame(2200, 104), frame(2400, 100)];
    const f = figures(eastThenStop(), frames, 0);
    expect(f.overshoot.max).toBeCloseTo(10, 9);
    expect(f.slideBacks).toBe(1);
    expect(f.error.max).toBeCloseTo(10, 9);
  });

  it("tells the error around a stall of the mover's inputs from the error elsewhere", () => {
    // The stop came late: the record marks a stall when the server took it (late went up).
    const record = new ServerRecord();
    record.observe(walker({ timeline: { held: 0, late: 0 } }), 'West', 0);
    record.observe(
      walker({ inputAt: 1000, moving: true, moveSpeed: 100, timeline: { held: 0, late: 0 } }),
      'West',
      1000,
    );
    record.observe(walker({ x: 100, inputAt: 2000, timeline: { held: 0, late: 1 } }), 'West', 2300);
    expect(record.stalls).toEqual([2300]);
    // Drawn 10 past the stop at 2100 (in the stall's window); 3 off on the walk at 1200, before it.
    const frames = [frame(1200, 23), frame(2000, 100), frame(2100, 110), frame(2400, 100), frame(4000, 100)];
    const f = figures(record, frames, 0);
    expect(f.stalls).toBe(1);
    expect(f.error.max).toBeCloseTo(10, 9);
    expect(f.errorInStalls).toBeCloseTo(10, 9);
    expect(f.errorOutsideStalls.max).toBeCloseTo(3, 9);
    expect(f.errorOutsideStalls.samples).toBe(2);
  });

  it('measures a watcher drawing a mover late as added delay, not as overshoot', () => {
    // 200 ms behind the drawn time: 20 units behind on the straight run.
    const frames = [1300, 1400, 1500, 1600].map((t) => frame(t, (t - 1200) / 10));
    const f = figures(eastThenStop(), frames, 0);
    expect(f.addedDelayMs).toBeCloseTo(200, 6);
    expect(f.overshoot.max).toBe(0);
  });

  it('holds the corpse until the respawn, then the graveyard: a jump, with no walk between', () => {
    const record = new ServerRecord();
    record.observe(walker({ x: 10, inputAt: 0 }), 'West', 0);
    record.observe(walker({ x: 10, inputAt: 0, alive: false }), 'West', 100);
    record.observe(walker({ x: 500, inputAt: 600 }), 'West', 600);
    expect(record.events.map((e) => e.kind)).toEqual(['death', 'respawn']);
    expect(record.at(599)!.x).toBeCloseTo(10, 3);
    expect(record.at(600)!.x).toBe(500);
  });
});

describe('netcode bench against a real server', () => {
  let server: BenchServer;

  beforeAll(async () => {
    server = await startBenchServer();
  }, 20_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('runs a clean mover and a clean watcher across the zone line and back: figures finite, error near zero', async () => {
    const walk: BenchLeg[] = [
      { x: 1, y: 0, ms: 1200 },
      { x: 0, y: 0, ms: 800 },
      { x: -1, y: 0, ms: 1200 },
      { x: 0, y: 0, ms: 800 },
    ];
    const group = await runGroup(server, {
      mover: { name: 'clean', link: CLEAN_LINK },
      watchers: [{ name: 'clean', link: CLEAN_LINK }],
      walk,
      settleMs: 1000,
      tailMs: 1000,
      tag: 'T',
      seed: 1,
    });
    const f = group.pairs[0]!.figures;
    expect(f.frames).toBeGreaterThan(200);
    expect(f.unseen).toBe(0);
    expect(f.stops).toBe(2);
    for (const v of [f.error.p50, f.error.p99, f.error.max, f.overshoot.max, f.endError, f.baseDelayMs])
      expect(Number.isFinite(v)).toBe(true);
    expect(group.events.filter((e) => e.kind === 'crossing')).toHaveLength(2);
    expect(f.error.p50).toBeLessThan(0.5);
    expect(f.error.p99).toBeLessThan(3);
    expect(f.overshoot.max).toBeLessThan(1);
    expect(group.moverFigures.corrections).toBe(0);
  }, 30_000);
});
