/**
 * A process's entries in the cluster registry: its node (announced and kept alive), the zones
 * a zone host runs (claimed: a zone held by another host is refused), and which accounts and
 * characters a gateway holds; a gateway's view of them all for /healthz; a zone host's watch
 * on the gateways' entries; and giving the entries back at shutdown. Over NATS the registry is
 * JetStream KV on the bus's own connection; in one process it is the in-memory store, so
 * `npm start` takes the same path.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../config.js';
import type { Logger } from '../log.js';
import type { Bus } from './bus.js';
import { jetStreamRegistry, memoryRegistry } from './index.js';
import { NatsBus } from './nats-bus.js';
import {
  Role,
  type ClusterRegistry,
  type Holder,
  type Lease,
  type NodeInfo,
  type RegistryEvent,
  type Watch,
  type ZoneClaim,
} from './registry.js';
import { zoneId } from './subjects.js';

/**
 * A zone this host is to run (ZONES) that another host runs: refused, as a zone runs on one
 * host at a time. A setting to change, not a fault in the code, so said without a stack: most
 * often a host killed and started again with its own command line after a standby took its
 * zone, which is to wait for the zone as a standby itself.
 */
export class ZoneTakenError extends ConfigError {
  constructor(
    readonly zone: string,
    readonly holder: string,
  ) {
    super(
      `zone ${zone} is run by zone host ${holder} (a zone runs on one host at a time): ` +
        'to take it over once that host is gone, start this one with ZONE_STANDBY=on',
    );
  }
}

/** How often a zone host looks again at a claim left by its own previous run. */
const CLAIM_RETRY_MS = 500;

/**
 * The registry beside `bus`: JetStream KV over NATS, in memory in one process. `ttlMs` is how
 * long a killed process's leases outlive it (every process of a cluster uses the same).
 */
export function openRegistry(bus: Bus, log: Logger, ttlMs?: number): Promise<ClusterRegistry> {
  return bus instanceof NatsBus
    ? jetStreamRegistry(bus.connection, { logger: log, ttlMs })
    : Promise.resolve(memoryRegistry({ logger: log, ttlMs }));
}

/** A process's registry identity: its configured id and an instance unique to this start. */
export function holderOf(id: string): Holder {
  return { id, instance: randomBytes(6).toString('hex') };
}

/** Where a gateway records the accounts and characters it holds (errors are logged, not thrown). */
export function registryDirectory(
  registry: ClusterRegistry,
  gateway: Holder,
  log: Logger,
): {
  entered(accountId: number, characterId: number, name: string): void;
  left(accountId: number, name: string): void;
} {
  const failed = (err: unknown) => log.warn({ err }, 'registry session entry not written');
  return {
    entered(accountId, characterId, name) {
      void Promise.all([
        registry.bindSession(accountId, gateway, characterId),
        registry.bindCharacter(name, accountId, gateway),
      ]).catch(failed);
    },
    left(accountId, name) {
      void Promise.all([
        registry.releaseSession(accountId, gateway),
        registry.releaseCharacter(name, gateway),
      ]).catch(failed);
    },
  };
}

export interface ClaimOptions {
  /** Wait for a zone another host holds, and take it once that host's claim lapses. */
  standby?: boolean;
  /** Called when the claim is found taken by another host (this one had lapsed). */
  onLost?: () => void;
  /** Gives up waiting: the claim rejects, and nothing is left claimed. */
  signal?: AbortSignal;
}

/**
 * Claims one zone for `host`. A zone another host holds is refused (two hosts must never run
 * one zone) unless `standby`: then it is waited for, and taken once that host's claim lapses
 * (the host died; a clean stop releases it at once). One still held by this node's previous
 * run (a restart within the lease's TTL) is waited for until that lease runs out. A host that
 * runs several zones claims each on its own, so that each runs as soon as it is held: a
 * standby for every zone takes the one whose host died, whatever becomes of the others.
 *
 * A standby keeps waiting through registry errors (NATS down for a while): it has nothing
 * else to do. Otherwise the first error rejects.
 */
export async function claimZone(
  registry: ClusterRegistry,
  host: Holder,
  name: string,
  log: Logger,
  options: ClaimOptions = {},
): Promise<Lease> {
  const zone = zoneId(name);
  const deadline = Date.now() + registry.ttlMs * 2;
  let told = false;
  let failing = false;
  for (;;) {
    if (options.signal?.aborted) throw new Error(`claiming zone ${name}: stopped`);
    try {
      const lease = await registry.claimZone(zone, host, {
        onLost: () => {
          log.error({ zone }, 'another zone host took this zone over');
          options.onLost?.();
        },
      });
      if (lease) {
        // Stopped while the claim was on its way: nobody is to run the zone here.
        if (options.signal?.aborted) {
          await lease.release().catch(() => {});
          throw new Error(`claiming zone ${name}: stopped`);
        }
        return lease;
      }
      const claim = await registry.zoneClaim(zone);
      failing = false;
      if (claim && options.standby && !told) {
        told = true;
        log.info({ zone, host: claim.host.id }, 'standing by: the zone is taken when its host is gone');
      }
      if (claim && !options.standby && (claim.host.id !== host.id || Date.now() > deadline)) {
        throw new ZoneTakenError(name, claim.host.id);
      }
    } catch (err) {
      if (!options.standby || options.signal?.aborted) throw err;
      if (!failing) log.warn({ err, zone }, 'standing by: the registry did not answer; asking again');
      failing = true;
    }
    await new Promise((resolve) => setTimeout(resolve, CLAIM_RETRY_MS));
  }
}

/**
 * What /healthz says of the cluster: its gateways, and its zone hosts with the zones each runs
 * and the HTTP port of their own /metrics and /healthz.
 */
export interface ClusterSummary {
  gateways: { id: string; host: string; tcpPort?: number; httpPort?: number }[];
  zoneHosts: { id: string; host: string; httpPort?: number; zones: string[] }[];
}

/** The registry's nodes and zone claims as they change (a watch), for /healthz. */
export class ClusterView {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly claims = new Map<string, ZoneClaim>();
  private watching: Watch | undefined;

  /** `onEvent` hears each change too, after the view has taken it in. */
  static async open(registry: ClusterRegistry, onEvent?: (e: RegistryEvent) => void): Promise<ClusterView> {
    const view = new ClusterView();
    view.watching = await registry.watch((e) => {
      view.take(e);
      onEvent?.(e);
    });
    return view;
  }

  /** The live zone hosts' ids. */
  zoneHostIds(): string[] {
    return [...this.nodes.values()].filter((n) => n.role === Role.ZoneHost).map((n) => n.id);
  }

  private take(e: RegistryEvent): void {
    if (e.type === 'node') {
      if (e.node) this.nodes.set(e.id, e.node);
      else this.nodes.delete(e.id);
    } else if (e.claim) this.claims.set(e.zone, e.claim);
    else this.claims.delete(e.zone);
  }

  summary(): ClusterSummary {
    const nodes = [...this.nodes.values()].sort((a, b) => a.id.localeCompare(b.id));
    return {
      gateways: nodes
        .filter((n) => n.role === Role.Gateway)
        .map(({ id, host, tcpPort, httpPort }) => ({ id, host, tcpPort, httpPort })),
      zoneHosts: nodes
        .filter((n) => n.role === Role.ZoneHost)
        .map(({ id, host, instance, httpPort }) => ({
          id,
          host,
          httpPort,
          zones: [...this.claims.values()]
            .filter((c) => c.host.id === id && c.host.instance === instance)
            .map((c) => c.zone)
            .sort(),
        })),
    };
  }

  stop(): void {
    this.watching?.stop();
    this.watching = undefined;
  }
}

/**
 * Whether a lapse the registry's watch reports means the holder is gone. Right after this
 * process's own connection to NATS came back (a NATS restart), every entry may have lapsed
 * while nobody could refresh it, and its live holder writes it again within TTL/3: such a
 * lapse is looked up again after half a TTL, and counts only if the entry is still missing.
 * At other times a lapse counts at once.
 */
export function lapseCheck(
  bus: Bus,
  ttlMs: number,
): (stillThere: () => Promise<boolean>) => Promise<boolean> {
  let reconnects = bus.stats().reconnects;
  let reconnectedAt = -Infinity;
  return async (stillThere) => {
    const seen = bus.stats().reconnects;
    if (seen !== reconnects) {
      reconnects = seen;
      reconnectedAt = Date.now();
    }
    if (Date.now() - reconnectedAt > ttlMs * 2) return true;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, ttlMs / 2));
      try {
        return !(await stillThere());
      } catch {
        // NATS unreachable again: ask once it is back.
      }
    }
  };
}

/** How a gateway's node entry ended: released by a planned stop, or lost (lapsed, or rewritten by a new instance). */
export type GatewayEnd = 'stopped' | 'lost';

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
export async function releaseAll(leases: readonly Lease[], log: Logger, bus?: Bus): Promise<void> {
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
