/**
 * A short fuzz run (tools/fuzz) in CI: tens of thousands of hostile frames over TCP and
 * WebSocket, in every connection state, against the real server process, an observer
 * pinging in the world. The long run is recorded in bench/results/fuzz-*.
 */
import { expect, it } from 'vitest';
import { runFuzz } from '../../tools/fuzz/run.js';

it(
  'survives 30,000 hostile frames: no crash, no uncaught exception, the observer served',
  { timeout: 180_000 },
  async () => {
    const r = await runFuzz({
      frames: 30_000,
      concurrency: 8,
      seed: 7,
      transports: ['tcp', 'ws'],
      deadlineMs: 8000,
      settleMs: 1000,
      warmupFrames: 0,
      maxRunMs: 120_000,
    });
    expect(r.framesSent).toBeGreaterThanOrEqual(30_000);
    expect(r.crashes).toBe(0);
    expect(r.uncaught).toBe(0);
    expect(r.serverErrorSamples).toEqual([]);
    expect(r.errorCodes.ERR_INTERNAL ?? 0).toBe(0);
    expect(r.observer.alive).toBe(true);
    expect(r.observer.pings).toBeGreaterThan(0);
    // Every connection was answered or closed by the server within the deadline.
    expect(r.outcomes.silent).toBe(0);
    expect(r.setupFailures).toBe(0);
    // Every kind of case ran over both transports.
    for (const kind of [
      'tcp frames',
      'tcp random-bytes',
      'tcp wrong-state',
      'ws frames',
      'ws text',
      'ws fragmented',
      'ws oversized',
    ])
      expect(r.byKind[kind] ?? 0, kind).toBeGreaterThan(0);
  },
);
