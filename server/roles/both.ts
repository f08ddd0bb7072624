/**
 * The whole game server in one process (role both): the zone-host role (the realm) and the
 * gateway role sharing one store, linked by the in-process bus (or NATS when NATS_URL is set).
 */
import { openRegistry } from '../cluster/presence.js';
import type { Bus, ClusterRegistry } from '../cluster/index.js';
import type { Config } from '../config.js';
import { LabFeed } from '../lab/feed.js';
import { createLogger, type Logger } from '../log.js';
import { trackCluster } from '../metrics/cluster.js';
import { openStore } from '../store/index.js';
import type { Realm } from '../zone/realm.js';
import { openBus } from './common.js';
import { startGateway, type GatewayHandle } from './gateway.js';
import { startZoneHost, type ZoneHostHandle } from './zone-host.js';

export interface WyvernHandle extends GatewayHandle {
  /** The zone-host role of this same process. */
  readonly realm: Realm;
}

export async function startWyvern(
  config: Config,
  options: { log?: Logger; seed?: number } = {},
): Promise<WyvernHandle> {
  const log = options.log ?? createLogger(config.logLevel);
  const store = await openStore(config.databaseUrl);
  let bus: Bus;
  try {
    bus = await openBus(config, log, `both-${config.gatewayId}`);
  } catch (e) {
    await store.close();
    throw e;
  }
  let labFeed: LabFeed | undefined;
  let host: ZoneHostHandle;
  let registry: ClusterRegistry | undefined;
  let untrack = (): void => {};
  try {
    registry = await openRegistry(bus, log, config.leaseTtlMs);
    untrack = trackCluster(bus, registry);
    host = await startZoneHost(config, {
      log,
      seed: options.seed,
      bus,
      store,
      registry,
      afterTick: () => labFeed?.tick(),
      http: false,
    });
  } catch (e) {
    untrack();
    await registry?.close();
    await bus.close();
    await store.close();
    throw e;
  }
  const realm = host.realm;
  if (config.labFeed) labFeed = new LabFeed(() => [...realm.zones.values()].map((z) => z.world));
  const shared = registry;
  const server = await startGateway(config, {
    log,
    bus,
    store,
    registry,
    labFeed,
    onStop: async () => {
      await host.stop();
      untrack();
      await shared.close();
      await bus.drain();
      await store.close();
    },
  });
  return Object.assign(server, { realm });
}
