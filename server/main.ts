/**
 * Composition root: config -> store -> roles (the zone host: Realm; the gateway: Gateway,
 * dispatch, transports) -> the bus between them (in process) -> metrics.
 * `startServer` is used by the command line below and by the integration tests (port 0
 * binds an ephemeral port; the handle reports the ports actually bound).
 *
 *   npx tsx server/main.ts [--http-port 8080] [--tcp-port 7777] ...   (see --help)
 */
import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, configHelp, loadConfig, type Config } from './config.js';
import { Dispatcher, LOGIN_MESSAGE_SIZE } from './dispatch/dispatcher.js';
import { noWorldRouter, type GameRouter } from './dispatch/router.js';
import { createLogger, type Logger } from './log.js';
import { metricsText, sendObserver, trackSendQueues, trackSrpHeap } from './metrics/index.js';
import { installMemoryProbe } from './metrics/memory-probe.js';
import { LabFeed } from './lab/feed.js';
import { composeHandlers, type SessionHandlers } from './session/handlers.js';
import { accountHandlers } from './session/account.js';
import { AccountService } from './session/accounts.js';
import { characterHandlers } from './session/characters.js';
import { handshakeHandlers } from './session/handshake.js';
import { LoginLimiter } from './session/login-limiter.js';
import { SrpPool } from './session/srp.js';
import { DEFAULT_SECRET_FILE, loadSecret } from './secret.js';
import { CharacterSaver, openStore, parseStoreUrl, type CharacterState, type Store } from './store/index.js';
import { loadWorldData, type WorldData } from './world/index.js';
import {
  InProcessBus,
  NatsBus,
  Role,
  zoneId,
  type Bus,
  type ClusterRegistry,
  type Lease,
  type Watch,
} from './cluster/index.js';
import {
  ClusterView,
  claimZones,
  holderOf,
  lapseCheck,
  openRegistry,
  registryDirectory,
} from './cluster/presence.js';
import { trackCluster } from './metrics/cluster.js';
import { Gateway } from './gateway/gateway.js';
import { Realm, type GatewayEnd } from './zone/realm.js';
import type { ConnectionOptions } from './transport/connection.js';
import { FlushScheduler } from './transport/flush.js';
import { listenStatus, type StatusListener } from './zone/status.js';
import { StaticSite } from './transport/http.js';
import { listenTcp } from './transport/tcp.js';
import { listenHttp, type WsEngine } from './transport/web.js';

export interface StartOptions {
  /** Defaults to a pino logger at the configured level. */
  readonly log?: Logger;
  /** Handler modules added to the handshake's (accounts, characters, ...). */
  readonly handlers?: readonly SessionHandlers[];
  /** Where zone and world packets go; until a world exists, they are refused. */
  readonly router?: GameRouter;
  /** Serves /lab/feed (only when config.labFeed is on). */
  readonly labFeed?: LabFeed;
  /** More for /healthz (the role, the cluster). */
  readonly health?: () => object;
}

export type ShutdownHook = () => void | Promise<void>;

export interface ServerHandle {
  readonly config: Config;
  readonly tcpPort: number;
  readonly httpPort: number;
  readonly wsEngine: WsEngine;
  readonly tls: boolean;
  /** The browser client's address on this machine. */
  readonly url: string;
  readonly dispatcher: Dispatcher;
  /** The world tick calls `scheduler.flushAll()` at its end. */
  readonly scheduler: FlushScheduler;
  readonly log: Logger;
  /** Runs during shutdown after clients got Bye and before sockets close (e.g. a final save). */
  onShutdown(name: string, hook: ShutdownHook): void;
  /**
   * Graceful stop: stop accepting, answer requests in flight with ERR_SHUTDOWN, Bye to all,
   * hooks, flush, close. Safe to call twice.
   */
  stop(): Promise<void>;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve('timeout'), ms);
    timer.unref();
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e as Error);
      },
    );
  });
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<ServerHandle> {
  const log = options.log ?? createLogger(config.logLevel);
  const startedAt = Date.now();
  const handlers = composeHandlers(
    handshakeHandlers({ serverName: config.serverName, tickRate: config.tickRate }),
    ...(options.handlers ?? []),
  );
  const dispatcher = new Dispatcher({
    config,
    handlers,
    router: options.router ?? noWorldRouter,
    log,
  });
  const scheduler = new FlushScheduler();
  const connection: ConnectionOptions = {
    limits: { softLimit: config.sendSoftLimit, hardLimit: config.sendHardLimit },
    scheduler,
    observer: sendObserver,
  };
  const untrack = trackSendQueues(() => [...dispatcher.sessions.values()].map((s) => s.conn));
  const tls =
    config.tlsCertFile !== undefined && config.tlsKeyFile !== undefined
      ? { certFile: config.tlsCertFile, keyFile: config.tlsKeyFile }
      : undefined;
  let stopping: Promise<void> | undefined;

  const health = () => {
    const byTransport = { tcp: 0, ws: 0 };
    for (const s of dispatcher.sessions.values()) byTransport[s.conn.transport]++;
    return {
      status: stopping ? 'stopping' : 'ok',
      uptime: Math.round((Date.now() - startedAt) / 1000),
      connections: dispatcher.sessions.size,
      transports: byTransport,
      wsEngine: http.engine,
      ...options.health?.(),
    };
  };

  const tcp = await listenTcp({
    host: config.host,
    port: config.tcpPort,
    tls,
    listener: dispatcher,
    connection,
  });
  let http: Awaited<ReturnType<typeof listenHttp>>['handle'];
  try {
    const started = await listenHttp(config.wsEngine, {
      host: config.host,
      port: config.httpPort,
      tls,
      listener: dispatcher,
      connection,
      routes: {
        metrics: metricsText,
        health,
        lab: config.labFeed && options.labFeed ? (q) => options.labFeed!.request(q) : undefined,
      },
      site: new StaticSite(config.webRoot),
      maxMessageSize: config.wsMaxMessageSize,
      loginMessageSize: Math.min(config.wsMaxMessageSize, LOGIN_MESSAGE_SIZE),
    });
    http = started.handle;
    if (started.note) log.warn(started.note);
  } catch (e) {
    await tcp.close();
    untrack();
    throw e;
  }

  const hooks: { name: string; hook: ShutdownHook }[] = [];
  const scheme = tls ? 'https' : 'http';
  const url = `${scheme}://localhost:${http.port}/`;

  const stop = async (): Promise<void> => {
    log.info('shutting down');
    dispatcher.stopAccepting();
    tcp.stopAccepting();
    http.stopAccepting();
    // Requests in flight (logins queued for the SRP pool) are answered ERR_SHUTDOWN and new
    // ones refused before anything closes, so no login meets a closed pool or store.
    await dispatcher.beginShutdown(config.shutdownTimeoutMs);
    dispatcher.sayByeToAll('shutdown', 'The server is shutting down.');
    options.labFeed?.close();
    scheduler.flushAll();
    const ran = await withTimeout(
      Promise.allSettled(
        hooks.map(async ({ name, hook }) => {
          try {
            await hook();
          } catch (e) {
            log.error({ err: e, hook: name }, 'shutdown hook failed');
          }
        }),
      ),
      config.shutdownTimeoutMs,
    );
    if (ran === 'timeout') log.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown hooks timed out');
    scheduler.flushAll();
    await dispatcher.closeAll('shutdown', config.shutdownTimeoutMs);
    await withTimeout(Promise.all([tcp.close(), http.close()]), config.shutdownTimeoutMs);
    untrack();
    log.info('stopped');
  };

  log.info(
    { http: http.port, tcp: tcp.port, wsEngine: http.engine, tls: tls !== undefined },
    `Wyvern is up: open ${url} in a browser; native clients connect to TCP port ${tcp.port}`,
  );

  return {
    config,
    tcpPort: tcp.port,
    httpPort: http.port,
    wsEngine: http.engine,
    tls: tls !== undefined,
    url,
    dispatcher,
    scheduler,
    log,
    onShutdown(name, hook) {
      hooks.push({ name, hook });
    },
    stop() {
      return (stopping ??= stop());
    },
  };
}

/** The zone-host role: every zone it runs, the tick, saving. */
export interface ZoneHostHandle {
  readonly realm: Realm;
  /** Where /metrics and /healthz answer; undefined when the process's gateway serves them. */
  readonly httpPort: number | undefined;
  readonly bus: Bus;
  readonly store: Store;
  readonly log: Logger;
  /** Stops ticking and writes everyone's state; closes the bus and store it opened itself. */
  stop(): Promise<void>;
}

/** The gateway role: the network front, accounts, and the link to the zone hosts. */
export interface GatewayHandle extends ServerHandle {
  readonly store: Store;
  readonly gateway: Gateway;
  readonly bus: Bus;
  readonly accounts: AccountService;
}

export interface WyvernHandle extends GatewayHandle {
  /** The zone-host role of this same process. */
  readonly realm: Realm;
}

interface RoleOptions {
  log?: Logger;
  /** Shared with the other role of the same process; otherwise opened (and closed) here. */
  bus?: Bus;
  store?: Store;
  registry?: ClusterRegistry;
}

/** The address other machines reach this one on, for its registry entry. */
function advertisedHost(config: Config): string {
  return config.host === '0.0.0.0' || config.host === '::' ? hostname() : config.host;
}

/** The bus of a process: NATS when NATS_URL is set, otherwise in process. */
export async function openBus(config: Config, log: Logger, name: string): Promise<Bus> {
  if (config.natsUrl === undefined) return new InProcessBus({ logger: log });
  const servers = config.natsUrl.split(',').map((u) => u.trim());
  return NatsBus.connect({ servers, name, logger: log });
}

/**
 * The names of the zones this zone host runs: those ZONES names (all of them by default). The
 * world data keeps every zone: a host needs its neighbours' ground at its borders.
 */
function hostedZones(config: Config, data: WorldData): string[] {
  if (config.zones === undefined) return data.zones.map((z) => z.name);
  const known = new Set(data.zones.map((z) => z.name.toLowerCase()));
  for (const z of config.zones) {
    if (!known.has(z.toLowerCase())) throw new ConfigError(`ZONES: no zone ${z} in ${config.dataDir}`);
  }
  const wanted = new Set(config.zones.map((z) => z.toLowerCase()));
  return data.zones.filter((z) => wanted.has(z.name.toLowerCase())).map((z) => z.name);
}

/**
 * The zone-host role: the realm over the bus, ticking. Its zones' inputs come from whichever
 * gateways hold the players, and its ticks go back to them.
 */
export async function startZoneHost(
  config: Config,
  options: RoleOptions & {
    seed?: number;
    afterTick?: () => void;
    /** /metrics and /healthz on HTTP_PORT; off when the gateway of the same process serves them. */
    http?: boolean;
  } = {},
): Promise<ZoneHostHandle> {
  const log = options.log ?? createLogger(config.logLevel);
  const data = loadWorldData(config.dataDir);
  const zones = hostedZones(config, data);
  const store = options.store ?? (await openStore(config.databaseUrl));
  let bus: Bus;
  try {
    bus = options.bus ?? (await openBus(config, log, `zone-host-${config.nodeId}`));
  } catch (e) {
    if (!options.store) await store.close();
    throw e;
  }
  let registry: ClusterRegistry | undefined;
  let node: Lease | undefined;
  /** This host's zone claims, by zone name. */
  const leases = new Map<string, Lease>();
  /** Stops this host waiting to claim again a zone it lost, when it stops. */
  const standing = new AbortController();
  let untrack = (): void => {};
  let status: StatusListener | undefined;
  let view: ClusterView | undefined;
  /** Filled in once running, for /healthz. */
  const live: { realm?: Realm; stopping?: boolean } = {};
  const holder = holderOf(config.nodeId);
  try {
    if (options.http ?? true) {
      status = await listenStatus({
        host: config.host,
        port: config.httpPort,
        routes: {
          metrics: metricsText,
          health: () => ({
            status: live.stopping ? 'stopping' : live.realm ? 'ok' : 'starting',
            role: config.role,
            id: config.nodeId,
            zones: live.realm
              ? [...live.realm.zones.keys()].filter((z) => live.realm!.running(z)).map(zoneId)
              : [],
            players: live.realm?.playerCount ?? 0,
            cluster: view?.summary(),
          }),
        },
      });
    }
    registry = options.registry ?? (await openRegistry(bus, log, config.leaseTtlMs));
    node = await registry.announce({
      ...holder,
      role: Role.ZoneHost,
      host: advertisedHost(config),
      ...(status ? { httpPort: status.port } : {}),
      startedAt: Date.now(),
    });
    if (!options.registry) untrack = trackCluster(bus, registry);
    /**
     * A zone this host ran was taken by another host while its claim had lapsed (a stall or a
     * partition): the realm drops it, and this host stands by to claim it again once that
     * host's claim lapses in turn.
     */
    const lost = (zone: string): void => {
      leases.delete(zone);
      live.realm?.loseZone(zone);
      if (standing.signal.aborted) return;
      claimZones(registry!, holder, [zone], log, {
        standby: true,
        onLost: lost,
        signal: standing.signal,
      }).then(
        ([lease]) => leases.set(zone, lease!),
        () => {},
      );
    };
    const claimed = await claimZones(registry, holder, zones, log, {
      standby: config.zoneStandby,
      onLost: (zone) => lost(zone),
    });
    zones.forEach((zone, i) => leases.set(zone, claimed[i]!));
    if (status) view = await ClusterView.open(registry);
  } catch (e) {
    await status?.close();
    await node?.release();
    untrack();
    if (!options.registry) await registry?.close();
    if (!options.bus) await bus.close();
    if (!options.store) await store.close();
    throw e;
  }
  const saver = new CharacterSaver(store, {
    onError: (err, ids) => log.error({ err, characters: ids }, 'character save failed'),
  });
  const realm = new Realm({
    data,
    zones,
    store,
    saver,
    bus,
    hostId: config.nodeId,
    log,
    tickRate: config.tickRate,
    autosaveMs: config.autosaveIntervalMs,
    rules: { interestRadius: config.interestRadius },
    lingerMs: config.lingerMs,
    combatLingerMs: config.combatLingerMs,
    seed: options.seed,
    afterTick: options.afterTick,
    holds: (zone) => leases.get(zone)?.held() ?? false,
  });
  live.realm = realm;
  realm.start();
  log.info(
    { zones: [...realm.zones.keys()], store: store.kind, role: 'zone-host', http: status?.port },
    'world running',
  );
  let gatewaysWatch: Watch | undefined;
  try {
    gatewaysWatch = await watchGateways(registry, lapseCheck(bus, registry.ttlMs), (id, how) =>
      realm.gatewayGone(id, how),
    );
  } catch (err) {
    log.error({ err }, 'cannot watch the registry: a killed gateway will go unnoticed');
  }
  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    live.stopping = true;
    standing.abort();
    gatewaysWatch?.stop();
    view?.stop();
    await status?.close();
    // Everyone's final state is written before the store closes.
    await realm.stop();
    await releaseAll([...leases.values(), node], log, bus);
    untrack();
    if (!options.registry) await quietly(log, 'registry', () => registry.close());
    if (!options.bus) await quietly(log, 'bus', () => bus.drain());
    if (!options.store) await store.close();
  };
  return { realm, httpPort: status?.port, bus, store, log, stop: () => (stopping ??= stop()) };
}

/**
 * The gateway role: storage for accounts, the SRP pool, and the network front (startServer)
 * with the account and character handlers and the Gateway as router.
 */
/** About how often a gateway sweeps the registry's stale session entries (ms). */
const SESSION_SWEEP_MS = 10 * 60_000;

export async function startGateway(
  config: Config,
  options: RoleOptions & { labFeed?: LabFeed; onStop?: () => Promise<void> } = {},
): Promise<GatewayHandle> {
  const log = options.log ?? createLogger(config.logLevel);
  const data = loadWorldData(config.dataDir);
  const store = options.store ?? (await openStore(config.databaseUrl));
  const location = parseStoreUrl(config.databaseUrl);
  const secretFile =
    location.kind === 'sqlite' && location.path !== ':memory:'
      ? join(dirname(location.path), 'server-secret')
      : DEFAULT_SECRET_FILE;
  const srp = new SrpPool({ size: config.srpWorkers });
  const untrackSrp = trackSrpHeap(() => srp.workerHeapBytes);
  let bus: Bus | undefined;
  let registry: ClusterRegistry | undefined;
  let node: Lease | undefined;
  let untrack = (): void => {};
  const closeOwn = async (): Promise<void> => {
    await srp.close();
    untrackSrp();
    if (node) await releaseAll([node], log, bus);
    untrack();
    if (!options.registry) await quietly(log, 'registry', () => registry?.close());
    if (!options.bus) await quietly(log, 'bus', () => bus?.drain());
    if (!options.store) await store.close();
  };
  try {
    await srp.ready();
    bus = options.bus ?? (await openBus(config, log, `gateway-${config.gatewayId}`));
    if (!options.registry) {
      registry = await openRegistry(bus, log, config.leaseTtlMs);
      untrack = trackCluster(bus, registry);
    } else registry = options.registry;
  } catch (e) {
    await closeOwn();
    throw e;
  }
  const accounts = new AccountService({
    store,
    srp,
    secret: loadSecret(config.secret, secretFile),
    // A token from any gateway of the cluster is good here (they share the secret).
    resumeTokens: registry,
    limiter: new LoginLimiter({
      perAccountAddress: config.loginFailuresPerAccount,
      perAddress: config.loginFailuresPerIp,
      lockAddresses: config.loginLockAddresses,
    }),
  });
  let flushAll = (): void => {};
  const holder = holderOf(config.gatewayId);
  const gateway = new Gateway({
    id: config.gatewayId,
    bus,
    store,
    zones: data.zones.map((z) => z.name),
    log,
    flush: () => flushAll(),
    directory: registryDirectory(registry, holder, log),
    lookups: registry,
    zoneHosts: () => view?.zoneHostIds() ?? [],
  });
  const zone = data.zones[0]!;
  const start = data.character;
  const startingState = (): CharacterState => ({
    zone: zone.name,
    x: zone.playerSpawn.x,
    y: zone.playerSpawn.y,
    facing: 0,
    level: start.level,
    health: start.health,
    mana: start.mana,
    spells: [...start.spells],
    kills: 0,
  });
  let server: ServerHandle;
  let view: ClusterView | undefined;
  try {
    // Zone claims coming and going tell the gateway which zones have a host.
    const lapsed = lapseCheck(bus, registry.ttlMs);
    const clusterRegistry = registry;
    view = await ClusterView.open(registry, (e) => {
      if (e.type !== 'zone') return;
      if (e.claim) gateway.zoneClaim(e.zone, e.claim.host);
      else {
        void lapsed(async () => (await clusterRegistry.zoneClaim(e.zone)) !== undefined).then((gone) => {
          if (gone) gateway.zoneClaim(e.zone, undefined);
        });
      }
    });
    const cluster = view;
    server = await startServer(config, {
      log,
      handlers: [
        accountHandlers({ accounts, world: gateway }),
        characterHandlers({ accounts, startingState }),
      ],
      router: gateway,
      labFeed: options.labFeed,
      health: () => ({ role: config.role, id: config.gatewayId, cluster: cluster.summary() }),
    });
  } catch (e) {
    view?.stop();
    gateway.close();
    await options.onStop?.();
    await closeOwn();
    throw e;
  }
  flushAll = () => server.scheduler.flushAll();
  // A token stays good for its whole lifetime after the connection that holds it drops.
  server.dispatcher.onSessionClosed((s) => {
    if (s.accountId === undefined) return;
    accounts.renewResumeToken(s.accountId).catch((err: unknown) => {
      log.warn({ err, accountId: s.accountId }, 'resume token not renewed: it lapses at its first expiry');
    });
  });
  // Dead gateways' session entries and lapsed resume records stay in the registry until their
  // keys are written again. The live gateway with the lowest id sweeps them now and then (a
  // sweep lists the whole bucket); should two think they are it for a moment, deletes are
  // checked by revision, so their sweeps may overlap harmlessly.
  const sweep = setInterval(
    () => {
      const ids = view.summary().gateways.map((g) => g.id);
      if (ids.some((id) => id < config.gatewayId)) return;
      registry.sweepSessions().then(
        (removed) => {
          if (removed > 0) log.info({ removed }, 'registry: stale session entries removed');
        },
        (err: unknown) => log.warn({ err }, 'registry sweep failed (will retry)'),
      );
    },
    SESSION_SWEEP_MS * (0.8 + Math.random() * 0.4),
  );
  sweep.unref();
  server.onShutdown('gateway', async () => {
    clearInterval(sweep);
    // No more inputs; then the zone host of this same process, whose final saves need the store.
    gateway.close();
    view.stop();
    if (node) await releaseAll([node], log, bus);
    node = undefined;
    await options.onStop?.();
    await closeOwn();
  });
  try {
    node = await registry.announce({
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
  return Object.assign(server, { store, gateway, bus, accounts });
}

/**
 * The whole game server in one process (role both): the zone-host role (the realm) and the
 * gateway role sharing one store, linked by the in-process bus (or NATS when NATS_URL is set).
 */
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
  const server = await startGateway(config, {
    log,
    bus,
    store,
    registry,
    labFeed,
    onStop: async () => {
      await host.stop();
      untrack();
      await registry.close();
      await bus.drain();
      await store.close();
    },
  });
  return Object.assign(server, { realm });
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      `Usage: tsx server/main.ts [options]\n\nOptions (flag / environment variable, default):\n${configHelp()}\n`,
    );
    return;
  }
  let config: Config;
  try {
    config = loadConfig(process.env, argv);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`wyvern: ${e.message}\n`);
    process.exit(1);
  }
  let running: { log: Logger; stop(): Promise<void> };
  if (config.role === 'zone-host') {
    const host = await startZoneHost(config);
    running = host;
    process.stdout.write(
      `\nWyvern zone host ${config.nodeId} is running zones ${[...host.realm.zones.keys()].join(', ')} over ${config.natsUrl}; /metrics and /healthz on HTTP port ${host.httpPort}.\n\n`,
    );
  } else {
    const server = config.role === 'gateway' ? await startGateway(config) : await startWyvern(config);
    running = server;
    // Off by default: only bench/memory.ts turns it on (an env var and an IPC channel).
    installMemoryProbe();
    // The log is JSON for machines; this line is for the person who just typed npm start.
    const what =
      config.role === 'gateway' ? `Wyvern gateway ${config.gatewayId} is running` : 'Wyvern is running';
    process.stdout.write(
      `\n${what}: open ${server.url} in a browser; native clients connect to TCP port ${server.tcpPort}.\n\n`,
    );
  }
  const server = running;
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      server.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    server.log.info({ signal }, 'signal received');
    // A stop that hangs past its own timeouts must still end the process.
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs * 3).unref();
    server.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        server.log.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/**
 * Calls `gone` with the id of each gateway whose node entry is released (`stopped`: a planned
 * stop), lapses or is written again by a new instance (`lost`: killed, or restarted within
 * the TTL): its sessions are dead.
 */
export async function watchGateways(
  registry: ClusterRegistry,
  lapsed: ReturnType<typeof lapseCheck>,
  gone: (id: string, how: GatewayEnd) => void,
): Promise<Watch> {
  const instances = new Map<string, string>();
  return registry.watch((e) => {
    if (e.type !== 'node') return;
    const known = instances.get(e.id);
    if (e.node && e.node.role !== Role.Gateway) return;
    if (e.node) {
      instances.set(e.id, e.node.instance);
      if (known !== undefined && known !== e.node.instance) gone(e.id, 'lost');
      return;
    }
    if (known === undefined) return;
    instances.delete(e.id);
    if (e.ended === 'released') {
      gone(e.id, 'stopped');
      return;
    }
    void lapsed(async () => (await registry.node(e.id))?.instance === known).then((dead) => {
      if (dead) gone(e.id, 'lost');
      // Back with the same instance: it never died; the watch reports it again.
      else if (!instances.has(e.id)) instances.set(e.id, known);
    });
  });
}

/**
 * Gives the registry entries back at shutdown, as a courtesy: with NATS unreachable (down,
 * or stopped first) they are left to lapse at the end of their TTL, and the rest of the
 * shutdown (final saves, the store) goes on.
 */
async function releaseAll(leases: readonly Lease[], log: Logger, bus?: Bus): Promise<void> {
  if (bus && !bus.stats().connected) {
    log.warn({ leases: leases.length }, 'NATS unreachable: registry entries lapse when their TTL runs out');
    return;
  }
  const results = await Promise.allSettled(leases.map((l) => l.release()));
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length > 0) {
    log.warn(
      { err: (failed[0] as PromiseRejectedResult).reason, leases: failed.length },
      'registry entries not released: they lapse when their TTL runs out',
    );
  }
}

/** A shutdown step that may fail with NATS gone: logged, and the shutdown goes on to the store. */
async function quietly(log: Logger, what: string, fn: () => Promise<unknown> | undefined): Promise<void> {
  try {
    await fn();
  } catch (err) {
    log.warn({ err, what }, 'not closed cleanly (NATS unreachable?); shutting down anyway');
  }
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`wyvern: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
}
