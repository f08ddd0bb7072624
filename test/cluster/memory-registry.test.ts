/** The shared registry suite on the in-process backend, and a lost lease on a clock we move. */
import { describe, expect, it } from 'vitest';
import { MemoryKvStore } from '../../server/cluster/memory-kv.js';
import { KvRegistry } from '../../server/cluster/registry.js';
import { registrySuite } from './registry-suite.js';
import { until } from './until.js';

const TTL_MS = 300;

registrySuite('in-memory', {
  ttlMs: TTL_MS,
  async fresh() {
    const store = new MemoryKvStore({ ttlMs: TTL_MS });
    return { open: async () => new KvRegistry(store.open()), dispose: async () => {} };
  },
});

describe('in-memory registry leases', () => {
  it('a host that missed its refreshes while another took its zone is told it lost it', async () => {
    let now = 0;
    const clock = () => now;
    const store = new MemoryKvStore({ ttlMs: 1_000, now: clock });
    const stalled = new KvRegistry(store.open(), { now: clock });
    const other = new KvRegistry(store.open(), { now: clock });
    let lost = 0;
    const lease = await stalled.claimZone(
      'greenvale',
      { id: 'zh0', instance: 'a' },
      { onLost: () => lost++ },
    );
    expect(lease?.held()).toBe(true);
    // A whole TTL passes in one step, as for a process paused past its lease.
    now += 1_000;
    expect(lease?.held()).toBe(false);
    expect(await other.claimZone('greenvale', { id: 'zh1', instance: 'b' })).toBeDefined();
    await until(() => lost === 1, 5_000, 'onLost');
    expect(lease?.held()).toBe(false);
    expect((await other.zoneClaim('greenvale'))?.host.id).toBe('zh1');
    // Closing the host that lost the zone does not delete the other host's claim.
    await stalled.close();
    expect((await other.zoneClaim('greenvale'))?.host.id).toBe('zh1');
    await other.close();
  });

  it('a lease that expired unclaimed is taken back on the next refresh', async () => {
    let now = 0;
    const clock = () => now;
    const store = new MemoryKvStore({ ttlMs: 1_000, now: clock });
    const host = new KvRegistry(store.open(), { now: clock });
    let lost = 0;
    const lease = await host.claimZone('greenvale', { id: 'zh0', instance: 'a' }, { onLost: () => lost++ });
    now += 1_000;
    expect(await host.zoneClaim('greenvale')).toBeUndefined();
    await until(async () => (await host.zoneClaim('greenvale')) !== undefined, 5_000, 'the claim rewritten');
    expect(lease?.held()).toBe(true);
    expect(lost).toBe(0);
    await host.close();
  });
});
