/** The gateways' sweeps of stale session entries: only the live gateway with the lowest id sweeps. */
import { afterEach, expect, it, vi } from 'vitest';
import { leadsSweeps, sweepStaleSessions } from '../../server/cluster/sweep.js';
import { silentLogger } from '../../server/log.js';

afterEach(() => {
  vi.useRealTimers();
});

it('leads the sweeps when no live gateway has a lower id', () => {
  expect(leadsSweeps(['gw-0', 'gw-1', 'gw-2'], 'gw-0')).toBe(true);
  expect(leadsSweeps(['gw-0', 'gw-1', 'gw-2'], 'gw-1')).toBe(false);
  // gw-0 gone: gw-1 takes over; alone, or before its own entry is seen, a gateway leads.
  expect(leadsSweeps(['gw-1', 'gw-2'], 'gw-1')).toBe(true);
  expect(leadsSweeps([], 'gw-2')).toBe(true);
});

it('sweeps now and then while it leads, never when another leads, and not after it stops', async () => {
  vi.useFakeTimers();
  let live = ['gw-0', 'gw-1'];
  const swept = { a: 0, b: 0 };
  const registry = (name: 'a' | 'b') => ({
    sweepSessions: () => {
      swept[name]++;
      return Promise.resolve(0);
    },
  });
  const stopA = sweepStaleSessions(registry('a'), () => live, 'gw-0', silentLogger, 1_000);
  const stopB = sweepStaleSessions(registry('b'), () => live, 'gw-1', silentLogger, 1_000);
  await vi.advanceTimersByTimeAsync(3_700);
  expect(swept.a).toBeGreaterThanOrEqual(3);
  expect(swept.b).toBe(0);
  // gw-0 is gone from the registry: gw-1 leads now.
  stopA();
  live = ['gw-1'];
  const before = swept.a;
  await vi.advanceTimersByTimeAsync(3_700);
  expect(swept.a).toBe(before);
  expect(swept.b).toBeGreaterThanOrEqual(3);
  stopB();
});
