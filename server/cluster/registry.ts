/**
 * The cluster registry: which gateways and zone hosts are alive and where they listen, which
 * host runs which zone, and which gateway holds which session (by account, and by character
 * name for whispers).
 *
 * It lives in a key-value store with two buckets (KvBackend): JetStream KV in a cluster
 * (jetstream-kv.ts), a map in one process (memory-kv.ts) that behaves the same, so the logic
 * here is one and the suite holds both backends to it.
 *
 *   bucket "leases" (every entry expires TTL after its last write; holders rewrite theirs every TTL/3)
 *     node.<id>         NodeInfo   a live gateway or zone host and its addresses
 *     zone.<zone>       ZoneClaim  the host running the zone; claimed by create-if-absent,
 *                                  refreshed by revision-checked update, so two hosts never
 *                                  both hold it
 *   bucket "sessions" (no expiry: an entry is live while its gateway's node entry is, same instance)
 *     account.<id>      SessionEntry    the gateway holding the account's session
 *     char.<name>       CharacterEntry  the gateway holding the character (name lower-cased)
 *     resume.<id>       ResumeRecord    the account's newest resume token (its id, not the token),
 *                                       owned by no gateway: it outlives the one that issued it
 *
 * A process that dies leaves its entries behind: its leases expire within TTL, and its
 * session entries stop counting the moment its node entry is gone (lookups check the holder's
 * instance; sweepSessions deletes them).
 *
 * This file is the registry's face (ClusterRegistry) and its nodes-and-zones view; the rest is
 * in rooms of their own: the entries and the store (registry-entries.ts), lease keeping
 * (registry-leases.ts), the sessions bucket (registry-sessions.ts), the watch
 * (registry-watch.ts) and the metrics (registry-metrics.ts).
 */
import { silentLogger, type Logger } from '../log.js';
import {
  decode,
  encode,
  nodeKey,
  RegistryError,
  sameHolder,
  WRITE_TRIES,
  zoneKey,
  type BucketName,
  type CharacterEntry,
  type Holder,
  type KvBackend,
  type NodeInfo,
  type RegistryEvent,
  type RegistryStats,
  type ResumeRecord,
  type SessionEntry,
  type Watch,
  type ZoneClaim,
} from './registry-entries.js';
import { LeaseKeeper, type Lease, type LeaseOptions } from './registry-leases.js';
import { SessionDirectory } from './registry-sessions.js';
import { watchLeases } from './registry-watch.js';

export {
  RegistryError,
  Role,
  type BucketName,
  type CharacterEntry,
  type EntryEnd,
  type Holder,
  type KvBackend,
  type KvEntry,
  type NodeInfo,
  type RegistryEvent,
  type RegistryStats,
  type ResumeRecord,
  type SessionEntry,
  type Watch,
  type ZoneClaim,
} from './registry-entries.js';
export { DEFAULT_LEASE_TTL_MS, HELD_FRACTION, type Lease, type LeaseOptions } from './registry-leases.js';
export { registryMetrics } from './registry-metrics.js';

export interface ClusterRegistry {
  readonly ttlMs: number;
  stats(): RegistryStats;
  /** Registers a live node, rewritten until released (a restarted node replaces its old entry). */
  announce(node: NodeInfo, options?: LeaseOptions): Promise<Lease>;
  nodes(): Promise<NodeInfo[]>;
  node(id: string): Promise<NodeInfo | undefined>;
  /** Claims a zone for a host; undefined when it is held already. */
  claimZone(zone: string, host: Holder, options?: LeaseOptions): Promise<Lease | undefined>;
  zoneClaim(zone: string): Promise<ZoneClaim | undefined>;
  zoneClaims(): Promise<ZoneClaim[]>;
  /**
   * Records that `gateway` holds the account's session (with `characterId` in the world);
   * returns the previous live holder when it was another.
   */
  bindSession(accountId: number, gateway: Holder, characterId?: number): Promise<SessionEntry | undefined>;
  /** Removes the binding if `gateway` still holds it. */
  releaseSession(accountId: number, gateway: Holder): Promise<boolean>;
  sessionGateway(accountId: number): Promise<SessionEntry | undefined>;
  bindCharacter(name: string, accountId: number, gateway: Holder): Promise<void>;
  releaseCharacter(name: string, gateway: Holder): Promise<boolean>;
  characterGateway(name: string): Promise<CharacterEntry | undefined>;
  /** Makes `record` the account's only good resume token (any older one is no longer). */
  putResumeToken(accountId: number, record: ResumeRecord): Promise<void>;
  /**
   * Takes the account's resume token `id` if it is still the newest: deleted at the revision
   * read (compare-and-set), so of any number of gateways trying at once exactly one gets it.
   */
  takeResumeToken(accountId: number, id: string): Promise<ResumeRecord | undefined>;
  /** Moves token `id`'s expiry to `expiresAt`, if it is still the newest; false otherwise. */
  renewResumeToken(accountId: number, id: string, expiresAt: number): Promise<boolean>;
  /**
   * Deletes session and character entries whose gateway is gone, and resume tokens past
   * their expiry; returns how many.
   */
  sweepSessions(): Promise<number>;
  /**
   * Calls `handler` with every node and zone claim now, then with each change: a claim or an
   * announcement (new or changed), a release, an expiry (seen within a TTL and a half).
   */
  watch(handler: (event: RegistryEvent) => void): Promise<Watch>;
  /** Stops refreshing and watching; releases this process's leases unless `release` is false (a crash, in tests). */
  close(options?: { release?: boolean }): Promise<void>;
}

export interface KvRegistryOptions {
  logger?: Logger;
  /** Time source for lease ages (tests). */
  now?: () => number;
}

/** The registry over any KvBackend. */
export class KvRegistry implements ClusterRegistry {
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly leases: LeaseKeeper;
  private readonly sessions: SessionDirectory;
  private readonly watches = new Set<Watch>();
  private closed = false;
  private readonly lookups: RegistryStats['lookups'] = {
    node: 0,
    zone: 0,
    session: 0,
    character: 0,
    resume: 0,
  };

  constructor(
    private readonly kv: KvBackend,
    options: KvRegistryOptions = {},
  ) {
    this.logger = (options.logger ?? silentLogger).child({ component: 'registry' });
    this.now = options.now ?? Date.now;
    this.leases = new LeaseKeeper(kv, this.logger, this.now);
    this.sessions = new SessionDirectory(kv, this.now, this.lookups);
  }

  get ttlMs(): number {
    return this.kv.ttlMs;
  }

  stats(): RegistryStats {
    const leases = this.leases.stats();
    return {
      lookups: { ...this.lookups },
      leasesHeld: leases.held,
      leasesLost: leases.lost,
      refreshFailures: leases.refreshFailures,
    };
  }

  async announce(node: NodeInfo, options: LeaseOptions = {}): Promise<Lease> {
    const key = nodeKey(node.id);
    const value = encode(node);
    for (let i = 0; i < WRITE_TRIES; i++) {
      const current = await this.kv.get('leases', key);
      const revision = current
        ? await this.kv.update('leases', key, value, current.revision)
        : await this.kv.create('leases', key, value);
      if (revision !== undefined) {
        if (current && !sameHolder(decode<NodeInfo>(current), node)) {
          this.logger.info({ id: node.id }, 'node entry of a previous run replaced');
        }
        return this.leases.hold(key, value, revision, options);
      }
    }
    throw new RegistryError(
      'ERR_REGISTRY_CONFLICT',
      `could not announce ${node.id}: its entry keeps changing`,
    );
  }

  async nodes(): Promise<NodeInfo[]> {
    return this.all<NodeInfo>('leases', 'node.');
  }

  async node(id: string): Promise<NodeInfo | undefined> {
    this.lookups.node++;
    const entry = await this.kv.get('leases', nodeKey(id));
    return entry && decode<NodeInfo>(entry);
  }

  async claimZone(zone: string, host: Holder, options: LeaseOptions = {}): Promise<Lease | undefined> {
    const key = zoneKey(zone);
    const value = encode({
      zone,
      host: { id: host.id, instance: host.instance },
      since: this.now(),
    } satisfies ZoneClaim);
    const revision = await this.kv.create('leases', key, value);
    return revision === undefined ? undefined : this.leases.hold(key, value, revision, options);
  }

  async zoneClaim(zone: string): Promise<ZoneClaim | undefined> {
    this.lookups.zone++;
    const entry = await this.kv.get('leases', zoneKey(zone));
    return entry && decode<ZoneClaim>(entry);
  }

  async zoneClaims(): Promise<ZoneClaim[]> {
    return this.all<ZoneClaim>('leases', 'zone.');
  }

  bindSession(accountId: number, gateway: Holder, characterId?: number): Promise<SessionEntry | undefined> {
    return this.sessions.bindSession(accountId, gateway, characterId);
  }

  releaseSession(accountId: number, gateway: Holder): Promise<boolean> {
    return this.sessions.releaseSession(accountId, gateway);
  }

  sessionGateway(accountId: number): Promise<SessionEntry | undefined> {
    return this.sessions.sessionGateway(accountId);
  }

  bindCharacter(name: string, accountId: number, gateway: Holder): Promise<void> {
    return this.sessions.bindCharacter(name, accountId, gateway);
  }

  releaseCharacter(name: string, gateway: Holder): Promise<boolean> {
    return this.sessions.releaseCharacter(name, gateway);
  }

  characterGateway(name: string): Promise<CharacterEntry | undefined> {
    return this.sessions.characterGateway(name);
  }

  putResumeToken(accountId: number, record: ResumeRecord): Promise<void> {
    return this.sessions.putResumeToken(accountId, record);
  }

  takeResumeToken(accountId: number, id: string): Promise<ResumeRecord | undefined> {
    return this.sessions.takeResumeToken(accountId, id);
  }

  renewResumeToken(accountId: number, id: string, expiresAt: number): Promise<boolean> {
    return this.sessions.renewResumeToken(accountId, id, expiresAt);
  }

  async sweepSessions(): Promise<number> {
    const live = new Set((await this.nodes()).map((n) => `${n.id}/${n.instance}`));
    return this.sessions.sweep(live);
  }

  async watch(handler: (event: RegistryEvent) => void): Promise<Watch> {
    const inner = await watchLeases(this.kv, handler, this.logger, this.now);
    const watch: Watch = {
      stop: () => {
        inner.stop();
        this.watches.delete(watch);
      },
    };
    this.watches.add(watch);
    return watch;
  }

  async close(options: { release?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.leases.stop();
    for (const watch of [...this.watches]) watch.stop();
    await this.leases.releaseAll(options.release ?? true);
    await this.kv.close();
  }

  private async all<T>(bucket: BucketName, prefix: string): Promise<T[]> {
    const out: T[] = [];
    for (const key of await this.kv.keys(bucket, prefix)) {
      const entry = await this.kv.get(bucket, key);
      if (entry) out.push(decode<T>(entry));
    }
    return out;
  }
}
