/**
 * The soak (tools/soak) for 20 s in CI: bots connect, play, drop their sockets and resume,
 * log out, retire accounts and register new ones against the real server process, with no
 * error anywhere. The hour-long run, with its memory drift, is recorded in
 * bench/results/soak-*.
 */
import { expect, it } from 'vitest';
import { runSoak } from '../../tools/soak/run.js';

it('runs 20 s of churn without an error', { timeout: 120_000 }, async () => {
  const r = await runSoak({
    durationMs: 20_000,
    bots: 8,
    sampleMs: 2000,
    seed: 3,
    warmupMs: 5000,
    playMs: [1500, 4000],
  });
  expect(r.errorKinds).toEqual({});
  expect(r.serverErrorSamples).toEqual([]);
  expect(r.uncaught).toBe(0);
  expect(r.crashed).toBe(false);
  expect(r.exit).toEqual({ code: 0, signal: null });
  expect(r.errors).toBe(0);
  // The churn happened: sockets dropped and resumed, logouts, new accounts.
  expect(r.counts.drops).toBeGreaterThan(0);
  expect(r.counts.resumes).toBeGreaterThan(0);
  expect(r.counts.logouts).toBeGreaterThan(0);
  expect(r.counts.entered).toBeGreaterThan(r.options.bots);
  expect(r.samples.length).toBeGreaterThan(3);
  // Every bot gone: the server holds no connection.
  expect(r.samples.at(-1)!.connections).toBe(0);
});
