/**
 * The zone-host role: the realm over the bus, ticking. Its zones' inputs come from whichever
 * gateways hold the players, and its ticks go back to them.
 *
 * The realm is made and listening before any zone is claimed, and each zone runs the moment
 * its claim is held (Realm.claimed), so the registry never names this host for a zone it does
 * not run. Each zone is claimed on its own (ZoneClaims): a host returns once it holds all of
 * them (a zone another host holds is refused), a standby (ZONE_STANDBY) at once, waiting for
 * each zone apart and running each as its host dies.
 */
import {
  ClusterView,
  holderOf,
  lapseCheck,
  openRegistry,
  releaseAll,
  watchGateways,
} from '../cluster/presence.js';
import {
  Role,
  zoneId,
  type Bus,
  type ClusterRegistry,
  type Holder,
  type Lease,
  type Watch,
} from '../cluster/index.js';
import { ZoneClaims } from '../cluster/zone-claims.js';
import { ConfigError, type Config } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { trackCluster } from '../metrics/cluster.js';
import { metricsText } from '../metrics/index.js';
import { CharacterSaver, openStore, type Store } from '../store/index.js';
import { loadWorldData, type WorldData } from '../world/index.js';
import { Realm } from '../zone/realm.js';
import { listenStatus, type StatusListener } from '../zone/status.js';
import { advertisedHost, openBus, quietly, type RoleOptions } from './common.js';

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

export interface ZoneHostOptions extends RoleOptions {
  seed?: number;
  afterTick?: () => void;
  /** /metrics and /healthz on HTTP_PORT; off when the gateway of the same process serves them. */
  http?: boolean;
  /** A zone this host waited for (a standby's, or one it lost) runs from now on. */
  onTaken?: (zone: string, httpPort: number | undefined) => void;
}

/**
 * The names of the zones this zone host runs: those ZONES names (all of them by default). The
 * world data keeps every zone: a host needs its neighbours' ground at its borders.
 */
export function hostedZones(config: Config, data: WorldData): string[] {
  if (config.zones === undefined) return data.zones.map((z) => z.name);
  const known = new Set(data.zones.map((z) => z.name.toLowerCase()));
  for (const z of config.zones) {
    if (!known.has(z.toLowerCase())) throw new ConfigError(`ZONES: no zone ${z} in ${config.dataDir}`);
  }
  const wanted = new Set(config.zones.map((z) => z.toLowerCase()));
  return data.zones.filter((z) => wanted.has(z.name.toLowerCase())).map((z) => z.name);
}

export async function startZoneHost(config: Config, options: ZoneHostOptions = {}): Promise<ZoneHostHandle> {
  const log = options.log ?? createLogger(config.logLevel);
  const data = loadWorldData(config.dataDir);
  const zones = hostedZones(config, data);
  const store = options.store ?? (await openStore(config.databaseUrl));
  let host: ZoneHost;
  try {
    const bus = options.bus ?? (await openBus(config, log, `zone-host-${config.nodeId}`));
    try {
      host = new ZoneHost(config, log, options, data, zones, store, bus);
    } catch (e) {
      if (!options.bus) await bus.close();
      throw e;
    }
  } catch (e) {
    if (!options.store) await store.close();
    throw e;
  }
  try {
    await host.start();
  } catch (e) {
    await host.close('start failed');
    throw e;
  }
  await host.watchGateways();
  return host;
}

/** One zone-host role: its realm, its registry entries and claims, its status listener. */
class ZoneHost implements ZoneHostHandle {
  readonly realm: Realm;
  private registry: ClusterRegistry | undefined;
  private node: Lease | undefined;
  private claims: ZoneClaims | undefined;
  private status: StatusListener | undefined;
  private view: ClusterView | undefined;
  private gateways: Watch | undefined;
  private untrack = (): void => {};
  /** For /healthz: the realm ticks; every zone is claimed or waited for; stopping. */
  private ticking = false;
  private started = false;
  private closing = false;
  private stopping: Promise<void> | undefined;
  private readonly holder: Holder;

  constructor(
    private readonly config: Config,
    readonly log: Logger,
    private readonly options: ZoneHostOptions,
    data: WorldData,
    private readonly zones: readonly string[],
    readonly store: Store,
    readonly bus: Bus,
  ) {
    this.holder = holderOf(config.nodeId);
    const saver = new CharacterSaver(store, {
      onError: (err, ids) => log.error({ err, characters: ids }, 'character save failed'),
    });
    this.realm = new Realm({
      data,
      zones: [...zones],
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
      holds: (zone) => this.claims?.holds(zone) ?? false,
      onRunning: (zone) => {
        if (this.claims?.takenOver(zone)) options.onTaken?.(zone, this.status?.port);
      },
    });
  }

  get httpPort(): number | undefined {
    return this.status?.port;
  }

  /** Listening (its zones idle, who answered) and announced before it claims any zone. */
  async start(): Promise<void> {
    const { config, options, realm, log } = this;
    if (options.http ?? true) {
      this.status = await listenStatus({
        host: config.host,
        port: config.httpPort,
        routes: { metrics: metricsText, health: () => this.health() },
      });
    }
    const registry = (this.registry =
      options.registry ?? (await openRegistry(this.bus, log, config.leaseTtlMs)));
    this.ticking = true;
    realm.start();
    this.node = await registry.announce({
      ...this.holder,
      role: Role.ZoneHost,
      host: advertisedHost(config),
      ...(this.status ? { httpPort: this.status.port } : {}),
      startedAt: Date.now(),
    });
    if (!options.registry) this.untrack = trackCluster(this.bus, registry);
    const claims = (this.claims = new ZoneClaims(registry, this.holder, log, {
      claimed: (zone) => realm.claimed(zone),
      lost: (zone) => realm.loseZone(zone),
    }));
    if (config.zoneStandby) claims.standByAll(this.zones);
    else await claims.claimAll(this.zones);
    this.started = true;
    if (this.status) this.view = await ClusterView.open(registry);
    log.info(
      {
        zones: this.running(),
        standingBy: this.zones.filter((z) => !realm.running(z)),
        store: this.store.kind,
        role: 'zone-host',
        http: this.status?.port,
      },
      'world running',
    );
  }

  /** A gateway gone (stopped or killed) ends its sessions here. */
  async watchGateways(): Promise<void> {
    const registry = this.registry!;
    try {
      this.gateways = await watchGateways(registry, lapseCheck(this.bus, registry.ttlMs), (id, how) =>
        this.realm.gatewayGone(id, how),
      );
    } catch (err) {
      this.log.error({ err }, 'cannot watch the registry: a killed gateway will go unnoticed');
    }
  }

  private running(): string[] {
    return [...this.realm.zones.keys()].filter((z) => this.realm.running(z));
  }

  private health() {
    const zones = this.ticking ? this.running() : [];
    return {
      // A standby (or a host whose zones were all taken) that runs nothing is well.
      status: this.closing ? 'stopping' : zones.length > 0 ? 'ok' : this.started ? 'standby' : 'starting',
      role: this.config.role,
      id: this.config.nodeId,
      zones: zones.map(zoneId),
      players: this.ticking ? this.realm.playerCount : 0,
      cluster: this.view?.summary(),
    };
  }

  stop(): Promise<void> {
    return (this.stopping ??= this.close('stop'));
  }

  /**
   * Everyone's final state is written before the store closes; the registry entries are
   * given back; what this role opened itself is closed. After a failed start, the bus is
   * closed at once instead of drained.
   */
  async close(why: 'stop' | 'start failed'): Promise<void> {
    this.closing = true;
    this.claims?.stop();
    this.gateways?.stop();
    this.view?.stop();
    await this.status?.close();
    await this.realm.stop();
    await releaseAll([...(this.claims?.held() ?? []), ...(this.node ? [this.node] : [])], this.log, this.bus);
    this.untrack();
    const { options, log, bus } = this;
    if (why === 'start failed') {
      if (!options.registry) await this.registry?.close();
      if (!options.bus) await bus.close();
    } else {
      if (!options.registry) await quietly(log, 'registry', () => this.registry?.close());
      if (!options.bus) await quietly(log, 'bus', () => bus.drain());
    }
    if (!options.store) await this.store.close();
  }
}
