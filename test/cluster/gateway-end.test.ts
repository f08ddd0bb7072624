/**
 * A zone host tells a gateway's planned stop (it released its node entry) from its loss
 * (killed: the entry lapsed; or back as a new instance), through the registry's watch.
 */
import { afterEach, expect, it } from 'vitest';
import { InProcessBus } from '../../server/cluster/in-process-bus.js';
import { MemoryKvStore } from '../../server/cluster/memory-kv.js';
import { lapseCheck } from '../../server/cluster/presence.js';
import { KvRegistry, Role, type NodeInfo } from '../../server/cluster/registry.js';
import { watchGateways } from '../../server/main.js';
import type { GatewayEnd } from '../../server/zone/realm.js';
import { until } from './until.js';

const TTL_MS = 300;
const open: KvRegistry[] = [];

afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

const gatewayNode = (id: string, instance: string, k = 0): NodeInfo => ({
  id,
  instance,
  role: Role.Gateway,
  host: '127.0.0.1',
  startedAt: 1_700_000_000_000,
  tcpPort: 7777 + k,
  httpPort: 8080 + k,
});

it('reports a released gateway as stopped, and a lapsed or restarted one as lost', async () => {
  const store = new MemoryKvStore({ ttlMs: TTL_MS });
  const registry = () => {
    const r = new KvRegistry(store.open());
    open.push(r);
    return r;
  };
  const [stopping, killed, restarted, zoneHost] = [registry(), registry(), registry(), registry()];
  await stopping.announce(gatewayNode('gw0', 'a'));
  await killed.announce(gatewayNode('gw1', 'b', 1));
  await restarted.announce(gatewayNode('gw2', 'c', 2));
  const gone: [string, GatewayEnd][] = [];
  const watch = await watchGateways(zoneHost, lapseCheck(new InProcessBus(), TTL_MS), (id, how) =>
    gone.push([id, how]),
  );
  try {
    await stopping.close();
    await killed.close({ release: false });
    // The same gateway id back as a new process before its entry lapsed.
    await restarted.close({ release: false });
    await registry().announce(gatewayNode('gw2', 'd', 2));
    await until(() => gone.length === 3, TTL_MS * 20 + 5_000, 'three gateways reported gone');
    expect(new Map(gone)).toEqual(
      new Map<string, GatewayEnd>([
        ['gw0', 'stopped'],
        ['gw1', 'lost'],
        ['gw2', 'lost'],
      ]),
    );
  } finally {
    watch.stop();
  }
});
