/** The shared registry suite on the in-process backend, and a lost lease on a clock we move. */
import { describe, expect, it } from 'vitest';
import { MemoryKvStore } from '../../server/cluster/memory-kv.js';
import { KvRegistry, type KvBackend } from '../../server/cluster/registry.js';
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

  it('keeps refreshing its other leases while the store leaves one write unanswered', async () => {
    const store = new MemoryKvStore({ ttlMs: 1_000 });
    const kv = store.open();
    // The store answers no write of the node entry (a restarted JetStream, until the write's
    // timeout): the zone's claim is written all the same.
    let giveUp = (): void => undefined;
    let nodeWrites = 0;
    const slow: KvBackend = {
      ...kv,
      ttlMs: kv.ttlMs,
      get: (b, k) => kv.get(b, k),
      create: (b, k, v) => kv.create(b, k, v),
      delete: (b, k, r) => kv.delete(b, k, r),
      keys: (b, p) => kv.keys(b, p),
      watch: (b, f) => kv.watch(b, f),
      close: () => kv.close(),
      update: (b, k, v, r) => {
        if (k !== 'node.zh0') return kv.update(b, k, v, r);
        nodeWrites++;
        return new Promise<never>((_, reject) => (giveUp = () => reject(new Error('timeout'))));
      },
    };
    const host = new KvRegistry(slow);
    const node = await host.announce({
      id: 'zh0',
      instance: 'a',
      role: 'zoneHost',
      host: '127.0.0.1',
      startedAt: 0,
    });
    const zone = await host.claimZone('greenvale', { id: 'zh0', instance: 'a' });
    // Two TTLs with the node entry's write unanswered: the zone's claim is held all along.
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(zone?.held(), `the claim at ${(i + 1) * 100} ms`).toBe(true);
    }
    // One write of it out at a time, and no longer held once most of a TTL passed without one.
    expect(nodeWrites).toBe(1);
    expect(node.held()).toBe(false);
    giveUp();
    await host.close({ release: false });
  });
});
