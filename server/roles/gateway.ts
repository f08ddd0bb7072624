/**
 * The gateway role: storage for accounts, the SRP pool, and the network front (startServer)
 * with the account and character handlers and the Gateway as router; the zone claims in the
 * registry tell it which zones have a host.
 */
import { dirname, join } from 'node:path';
import { Role, type Bus, type ClusterRegistry, type Holder, type Lease } from '../cluster/index.js';
import {
  ClusterView,
  holderOf,
  lapseCheck,
  openRegistry,
  registryDirectory,
  releaseAll,
} from '../cluster/presence.js';
import { sweepStaleSessions } from '../cluster/sweep.js';
import type { Config } from '../config.js';
import { Gateway } from '../gateway/gateway.js';
import type { LabFeed } from '../lab/feed.js';
import { createLogger, type Logger } from '../log.js';
import { trackCluster } from '../metrics/cluster.js';
import { trackSrpHeap } from '../metrics/index.js';
import { DEFAULT_SECRET_FILE, loadSecret } from '../secret.js';
import { accountHandlers } from '../session/account.js';
import { AccountService } from '../session/accounts.js';
import { characterHandlers } from '../session/characters.js';
import { LoginLimiter } from '../session/login-limiter.js';
import { SrpPool } from '../session/srp.js';
import { openStore, parseStoreUrl, type Store } from '../store/index.js';
import { loadWorldData, startingState, type WorldData } from '../world/index.js';
import { advertisedHost, openBus, quietly, type RoleOptions } from './common.js';
import { startServer, type ServerHandle } from './front.js';

/** The gateway role: the network front, accounts, and the link to the zone hosts. */
export interface GatewayHandle extends ServerHandle {
  readonly store: Store;
  readonly gateway: Gateway;
  readonly bus: Bus;
  readonly accounts: AccountService;
}

export interface GatewayOptions extends RoleOptions {
  labFeed?: LabFeed;
  /** Runs at shutdown once the gateway takes no more inputs, before its own bus and store close. */
  onStop?: () => Promise<void>;
}

/** What a gateway opens for itself (or is given), and how it is closed again. */
interface Link {
  readonly srp: SrpPool;
  readonly bus: Bus;
  readonly registry: ClusterRegistry;
  /** This gateway's node entry, once announced. */
  node: Lease | undefined;
  close(): Promise<void>;
}

export async function startGateway(config: Config, options: GatewayOptions = {}): Promise<GatewayHandle> {
  const log = options.log ?? createLogger(config.logLevel);
  const data = loadWorldData(config.dataDir);
  const store = options.store ?? (await openStore(config.databaseUrl));
  const link = await openLink(config, log, store, options);
  let accounts: AccountService;
  try {
    accounts = accountService(config, store, link);
  } catch (e) {
    await link.close();
    throw e;
  }
  const holder = holderOf(config.gatewayId);
  const { server, gateway, cluster } = await startFront(
    config,
    log,
    data,
    store,
    link,
    accounts,
    holder,
    options,
  );
  renewTokensOnClose(server, accounts, log);
  const stopSweeps = sweepStaleSessions(
    link.registry,
    () => cluster.summary().gateways.map((g) => g.id),
    config.gatewayId,
    log,
  );
  server.onShutdown('gateway', async () => {
    stopSweeps();
    // No more inputs; then the zone host of this same process, whose final saves need the store.
    gateway.close();
    cluster.stop();
    const node = link.node;
    link.node = undefined;
    if (node) await releaseAll([node], log, link.bus);
    await options.onStop?.();
    await link.close();
  });
  try {
    link.node = await link.registry.announce({
      ...holder,
      role: Role.Gateway,
      host: advertisedHost(config),
      tcpPort: server.tcpPort,
      httpPort: server.httpPort,
      startedAt: Date.now(),
    });
  } catch (e) {
    await server.stop();
    throw e;
  }
  return Object.assign(server, { store, gateway, bus: link.bus, accounts });
}

/**
 * The Gateway (the router for zone and world packets), the watch on the zone claims that
 * tells it which zones have a host, and the network front with the game's handlers. On
 * failure everything is closed again, the other role of the process (onStop) included.
 */
async function startFront(
  config: Config,
  log: Logger,
  data: WorldData,
  store: Store,
  link: Link,
  accounts: AccountService,
  holder: Holder,
  options: GatewayOptions,
): Promise<{ server: ServerHandle; gateway: Gateway; cluster: ClusterView }> {
  let server: ServerHandle | undefined;
  let view: ClusterView | undefined;
  const gateway = new Gateway({
    id: config.gatewayId,
    bus: link.bus,
    store,
    zones: data.zones.map((z) => z.name),
    log,
    flush: () => server?.scheduler.flushAll(),
    directory: registryDirectory(link.registry, holder, log),
    lookups: link.registry,
    zoneHosts: () => view?.zoneHostIds() ?? [],
  });
  try {
    const cluster = (view = await watchZones(link, gateway));
    server = await startServer(config, {
      log,
      handlers: gameHandlers(data, accounts, gateway),
      router: gateway,
      labFeed: options.labFeed,
      health: () => ({ role: config.role, id: config.gatewayId, cluster: cluster.summary() }),
    });
    return { server, gateway, cluster };
  } catch (e) {
    view?.stop();
    gateway.close();
    await options.onStop?.();
    await link.close();
    throw e;
  }
}

/** The SRP pool, the bus and the registry (each given or opened here); closed again on failure. */
async function openLink(config: Config, log: Logger, store: Store, options: GatewayOptions): Promise<Link> {
  const srp = new SrpPool({ size: config.srpWorkers });
  const untrackSrp = trackSrpHeap(() => srp.workerHeapBytes);
  let bus: Bus | undefined;
  let registry: ClusterRegistry | undefined;
  let untrack = (): void => {};
  const link: Link = {
    srp,
    get bus() {
      return bus!;
    },
    get registry() {
      return registry!;
    },
    node: undefined,
    async close() {
      await srp.close();
      untrackSrp();
      if (link.node) await releaseAll([link.node], log, bus);
      untrack();
      if (!options.registry) await quietly(log, 'registry', () => registry?.close());
      if (!options.bus) await quietly(log, 'bus', () => bus?.drain());
      if (!options.store) await store.close();
    },
  };
  try {
    await srp.ready();
    bus = options.bus ?? (await openBus(config, log, `gateway-${config.gatewayId}`));
    if (!options.registry) {
      registry = await openRegistry(bus, log, config.leaseTtlMs);
      untrack = trackCluster(bus, registry);
    } else registry = options.registry;
  } catch (e) {
    await link.close();
    throw e;
  }
  return link;
}

/** Where the server secret is kept when WYVERN_SECRET is not set: beside a SQLite file. */
function secretFile(config: Config): string {
  const location = parseStoreUrl(config.databaseUrl);
  return location.kind === 'sqlite' && location.path !== ':memory:'
    ? join(dirname(location.path), 'server-secret')
    : DEFAULT_SECRET_FILE;
}

function accountService(config: Config, store: Store, link: Link): AccountService {
  return new AccountService({
    store,
    srp: link.srp,
    secret: loadSecret(config.secret, secretFile(config)),
    // A token from any gateway of the cluster is good here (they share the secret).
    resumeTokens: link.registry,
    limiter: new LoginLimiter({
      perAccountAddress: config.loginFailuresPerAccount,
      perAddress: config.loginFailuresPerIp,
      lockAddresses: config.loginLockAddresses,
    }),
  });
}

function gameHandlers(data: WorldData, accounts: AccountService, gateway: Gateway) {
  return [
    accountHandlers({ accounts, world: gateway }),
    characterHandlers({ accounts, startingState: () => startingState(data) }),
  ];
}

/** Zone claims coming and going tell the gateway which zones have a host. */
function watchZones(link: Link, gateway: Gateway): Promise<ClusterView> {
  const { registry } = link;
  const lapsed = lapseCheck(link.bus, registry.ttlMs);
  return ClusterView.open(registry, (e) => {
    if (e.type !== 'zone') return;
    if (e.claim) gateway.zoneClaim(e.zone, e.claim.host);
    else {
      void lapsed(async () => (await registry.zoneClaim(e.zone)) !== undefined).then((gone) => {
        if (gone) gateway.zoneClaim(e.zone, undefined);
      });
    }
  });
}

/** A token stays good for its whole lifetime after the connection that holds it drops. */
function renewTokensOnClose(server: ServerHandle, accounts: AccountService, log: Logger): void {
  server.dispatcher.onSessionClosed((s) => {
    if (s.accountId === undefined) return;
    accounts.renewResumeToken(s.accountId).catch((err: unknown) => {
      log.warn({ err, accountId: s.accountId }, 'resume token not renewed: it lapses at its first expiry');
    });
  });
}
