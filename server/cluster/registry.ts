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
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { silentLogger, type Logger } from '../log.js';
import { checkToken } from './subjects.js';

/** How long a dead process's node entry and zone claims outlive it, by default. */
export const DEFAULT_LEASE_TTL_MS = 10_000;
/**
 * A lease counts as held for this part of the TTL after its last refresh. The store's TTL runs
 * from when the write reached it, which is before its answer reached us: a holder stops a little
 * early rather than run on for a moment beside the node that takes the entry at its expiry.
 */
export const HELD_FRACTION = 0.9;

export const Role = { Gateway: 'gateway', ZoneHost: 'zoneHost' } as const;
export type Role = (typeof Role)[keyof typeof Role];

/** A process: its id (configured, stable across restarts) and instance (random per start). */
export interface Holder {
  id: string;
  instance: string;
}

export interface NodeInfo extends Holder {
  role: Role;
  /** The address other machines reach it on. */
  host: string;
  tcpPort?: number;
  httpPort?: number;
  /** ms since the epoch. */
  startedAt: number;
}

export interface ZoneClaim {
  zone: string;
  host: Holder;
  since: number;
}

export interface SessionEntry {
  accountId: number;
  gateway: Holder;
  since: number;
  /** The character the account has in the world there (lingering included), when it has one. */
  characterId?: number;
}

export interface CharacterEntry {
  /** As the world shows it ("Arwen"); the key is lower-cased. */
  name: string;
  accountId: number;
  gateway: Holder;
}

/**
 * The account's newest resume token, as any gateway checks it: the token's id (its nonce, not
 * the token: what the registry holds cannot be presented), the account name it was issued
 * for, and when it stops being good.
 */
export interface ResumeRecord {
  id: string;
  name: string;
  expiresAt: number;
}

/**
 * How an entry went: `released` by its holder (a planned stop, or a zone given up), or
 * `lapsed`, not rewritten for a TTL (its holder died, or lost NATS for that long).
 */
export type EntryEnd = 'released' | 'lapsed';

export type RegistryEvent =
  | { type: 'node'; id: string; node: NodeInfo | undefined; ended?: EntryEnd }
  | { type: 'zone'; zone: string; claim: ZoneClaim | undefined; ended?: EntryEnd };

export interface Lease {
  readonly key: string;
  /**
   * True while the entry is ours and was refreshed within HELD_FRACTION of the TTL. False once
   * another node took it, or after most of a TTL without a successful refresh (the store may
   * let it expire and give it to another): a zone host stops running the zone then.
   */
  held(): boolean;
  /** Deletes the entry if it is still ours and stops refreshing it. */
  release(): Promise<void>;
}

export interface LeaseOptions {
  /** Called once when the entry is found to belong to another node. */
  onLost?: () => void;
}

export interface Watch {
  stop(): void;
}

/** Counts since the registry was opened. */
export interface RegistryStats {
  /** Lookups by what was looked up (node, zone, session, character, resume token). */
  lookups: Record<'node' | 'zone' | 'session' | 'character' | 'resume', number>;
  leasesHeld: number;
  leasesLost: number;
  /** Refreshes that failed for want of the store (they are retried). */
  refreshFailures: number;
}

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

// ---------------------------------------------------------------------------------------------
// The storage under the registry.

export type BucketName = 'leases' | 'sessions';

export interface KvEntry {
  key: string;
  value: Uint8Array;
  revision: number;
}

/**
 * What the registry needs of a key-value store: JetStream KV's semantics. A key is a
 * dot-separated subject; revisions grow per bucket; a deleted or expired key reads as absent;
 * "leases" entries expire ttlMs after their last write, silently (watchers are not told).
 */
export interface KvBackend {
  readonly ttlMs: number;
  get(bucket: BucketName, key: string): Promise<KvEntry | undefined>;
  /** The new revision, or undefined when the key exists. */
  create(bucket: BucketName, key: string, value: Uint8Array): Promise<number | undefined>;
  /** The new revision, or undefined when the key's revision is no longer `revision` (or it is gone). */
  update(bucket: BucketName, key: string, value: Uint8Array, revision: number): Promise<number | undefined>;
  /** False when the key's revision is no longer `revision`. */
  delete(bucket: BucketName, key: string, revision: number): Promise<boolean>;
  keys(bucket: BucketName, prefix: string): Promise<string[]>;
  /** Changes from now on: a write (entry) or a delete (undefined). Expiries are not reported. */
  watch(bucket: BucketName, onChange: (key: string, entry: KvEntry | undefined) => void): Promise<Watch>;
  close(): Promise<void>;
}

export class RegistryError extends Error {
  constructor(
    readonly code: 'ERR_REGISTRY_CONFLICT',
    message: string,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (value: unknown) => encoder.encode(JSON.stringify(value));
const decode = <T>(entry: KvEntry): T => JSON.parse(decoder.decode(entry.value)) as T;

const nodeKey = (id: string) => `node.${checkToken('node id', id)}`;
const zoneKey = (zone: string) => `zone.${checkToken('zone', zone)}`;
const accountKey = (accountId: number) => {
  if (!Number.isSafeInteger(accountId) || accountId < 0) throw new RangeError(`bad account id ${accountId}`);
  return `account.${accountId}`;
};
const characterKey = (name: string) => `char.${checkToken('character name', name.toLowerCase())}`;
const resumeKey = (accountId: number) => `resume.${accountKey(accountId).slice('account.'.length)}`;

const sameHolder = (a: Holder, b: Holder) => a.id === b.id && a.instance === b.instance;
/** Writes that lose a race are tried again this many times before giving up. */
const WRITE_TRIES = 5;

interface LeaseState {
  readonly key: string;
  readonly value: Uint8Array;
  revision: number;
  refreshedAt: number;
  lost: boolean;
  released: boolean;
  onLost: (() => void) | undefined;
  /** A write of it is out: the next waits for its answer. */
  refreshing: boolean;
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
  private readonly leases = new Map<string, LeaseState>();
  private readonly watches = new Set<Watch>();
  private readonly timer: NodeJS.Timeout;
  /** A refresh asked again soon after one failed (see refresh). */
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly lookups: RegistryStats['lookups'] = {
    node: 0,
    zone: 0,
    session: 0,
    character: 0,
    resume: 0,
  };
  private leasesLost = 0;
  private refreshFailures = 0;

  constructor(
    private readonly kv: KvBackend,
    options: KvRegistryOptions = {},
  ) {
    this.logger = (options.logger ?? silentLogger).child({ component: 'registry' });
    this.now = options.now ?? Date.now;
    this.timer = setInterval(() => this.refresh(), Math.max(10, Math.floor(kv.ttlMs / 3)));
    this.timer.unref();
  }

  get ttlMs(): number {
    return this.kv.ttlMs;
  }

  stats(): RegistryStats {
    return {
      lookups: { ...this.lookups },
      leasesHeld: this.leases.size,
      leasesLost: this.leasesLost,
      refreshFailures: this.refreshFailures,
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
        return this.hold(key, value, revision, options);
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
    return revision === undefined ? undefined : this.hold(key, value, revision, options);
  }

  async zoneClaim(zone: string): Promise<ZoneClaim | undefined> {
    this.lookups.zone++;
    const entry = await this.kv.get('leases', zoneKey(zone));
    return entry && decode<ZoneClaim>(entry);
  }

  async zoneClaims(): Promise<ZoneClaim[]> {
    return this.all<ZoneClaim>('leases', 'zone.');
  }

  async bindSession(
    accountId: number,
    gateway: Holder,
    characterId?: number,
  ): Promise<SessionEntry | undefined> {
    const entry: SessionEntry = {
      accountId,
      gateway: { id: gateway.id, instance: gateway.instance },
      since: this.now(),
      ...(characterId === undefined ? {} : { characterId }),
    };
    const previous = await this.write(accountKey(accountId), encode(entry));
    if (!previous) return undefined;
    const before = decode<SessionEntry>(previous);
    return !sameHolder(before.gateway, gateway) && (await this.live(before.gateway)) ? before : undefined;
  }

  releaseSession(accountId: number, gateway: Holder): Promise<boolean> {
    return this.releaseIfHeld(accountKey(accountId), gateway);
  }

  async sessionGateway(accountId: number): Promise<SessionEntry | undefined> {
    this.lookups.session++;
    const entry = await this.kv.get('sessions', accountKey(accountId));
    if (!entry) return undefined;
    const session = decode<SessionEntry>(entry);
    return (await this.live(session.gateway)) ? session : undefined;
  }

  async bindCharacter(name: string, accountId: number, gateway: Holder): Promise<void> {
    const entry: CharacterEntry = {
      name,
      accountId,
      gateway: { id: gateway.id, instance: gateway.instance },
    };
    await this.write(characterKey(name), encode(entry));
  }

  releaseCharacter(name: string, gateway: Holder): Promise<boolean> {
    return this.releaseIfHeld(characterKey(name), gateway);
  }

  async characterGateway(name: string): Promise<CharacterEntry | undefined> {
    this.lookups.character++;
    const entry = await this.kv.get('sessions', characterKey(name));
    if (!entry) return undefined;
    const character = decode<CharacterEntry>(entry);
    return (await this.live(character.gateway)) ? character : undefined;
  }

  async putResumeToken(accountId: number, record: ResumeRecord): Promise<void> {
    await this.write(resumeKey(accountId), encode(record));
  }

  async takeResumeToken(accountId: number, id: string): Promise<ResumeRecord | undefined> {
    this.lookups.resume++;
    const entry = await this.kv.get('sessions', resumeKey(accountId));
    if (!entry) return undefined;
    const record = decode<ResumeRecord>(entry);
    if (record.id !== id) return undefined;
    // Another gateway that read the same revision loses here: the token works once.
    return (await this.kv.delete('sessions', resumeKey(accountId), entry.revision)) ? record : undefined;
  }

  async renewResumeToken(accountId: number, id: string, expiresAt: number): Promise<boolean> {
    for (let i = 0; i < WRITE_TRIES; i++) {
      const entry = await this.kv.get('sessions', resumeKey(accountId));
      if (!entry) return false;
      const record = decode<ResumeRecord>(entry);
      if (record.id !== id) return false;
      const renewed = encode({ ...record, expiresAt } satisfies ResumeRecord);
      if ((await this.kv.update('sessions', resumeKey(accountId), renewed, entry.revision)) !== undefined)
        return true;
    }
    return false;
  }

  async sweepSessions(): Promise<number> {
    const live = new Set((await this.nodes()).map((n) => `${n.id}/${n.instance}`));
    const now = this.now();
    let removed = 0;
    for (const key of await this.kv.keys('sessions', '')) {
      const entry = await this.kv.get('sessions', key);
      if (!entry) continue;
      if (key.startsWith('resume.')) {
        // Not tied to a gateway: a token outlives the gateway that issued it, until it expires.
        if (decode<ResumeRecord>(entry).expiresAt > now) continue;
      } else {
        const { gateway } = decode<{ gateway: Holder }>(entry);
        if (live.has(`${gateway.id}/${gateway.instance}`)) continue;
      }
      if (await this.kv.delete('sessions', key, entry.revision)) removed++;
    }
    return removed;
  }

  async watch(handler: (event: RegistryEvent) => void): Promise<Watch> {
    /** Per key: the revision and bytes last reported, and when the entry was last seen written. */
    const seen = new Map<string, { revision: number; value: Uint8Array; at: number }>();
    const report = (key: string, entry: KvEntry | undefined, ended: EntryEnd) => {
      const last = seen.get(key);
      if (entry) {
        if (last && last.revision >= entry.revision) return;
        seen.set(key, { revision: entry.revision, value: entry.value, at: this.now() });
        // A refresh rewrites the same bytes: the watcher hears of changes, not heartbeats.
        if (last && sameBytes(last.value, entry.value)) return;
      } else {
        if (!last) return;
        seen.delete(key);
      }
      const event = toEvent(key, entry, ended);
      if (!event) return;
      try {
        handler(event);
      } catch (err) {
        this.logger.error({ err, key }, 'registry watch handler failed');
      }
    };
    // Only a holder's release deletes a lease: the watch's deletions are releases.
    const changes = await this.kv.watch('leases', (key, entry) => report(key, entry, 'released'));
    for (const key of await this.kv.keys('leases', '')) {
      const entry = await this.kv.get('leases', key);
      if (entry) report(key, entry, 'released');
    }
    // Expiry makes no event: an entry not rewritten for a TTL is looked up, and reported gone if it is.
    let checking = false;
    const expiry = setInterval(
      async () => {
        if (checking) return;
        checking = true;
        try {
          for (const [key, last] of seen) {
            if (this.now() - last.at < this.kv.ttlMs) continue;
            const entry = await this.kv.get('leases', key);
            if (entry) {
              if (entry.revision === last.revision) last.at = this.now();
              else report(key, entry, 'lapsed');
            } else report(key, undefined, 'lapsed');
          }
        } catch (err) {
          this.logger.debug({ err }, 'registry expiry check failed (will retry)');
        } finally {
          checking = false;
        }
      },
      Math.max(10, Math.floor(this.kv.ttlMs / 4)),
    );
    expiry.unref();
    const watch: Watch = {
      stop: () => {
        clearInterval(expiry);
        changes.stop();
        this.watches.delete(watch);
      },
    };
    this.watches.add(watch);
    return watch;
  }

  async close(options: { release?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.retry);
    for (const watch of [...this.watches]) watch.stop();
    if (options.release ?? true) {
      for (const lease of [...this.leases.values()]) await this.releaseLease(lease).catch(() => {});
    }
    this.leases.clear();
    await this.kv.close();
  }

  private hold(key: string, value: Uint8Array, revision: number, options: LeaseOptions): Lease {
    const state: LeaseState = {
      key,
      value,
      revision,
      refreshedAt: this.now(),
      lost: false,
      released: false,
      onLost: options.onLost,
      refreshing: false,
    };
    this.leases.set(key, state);
    return {
      key,
      held: () =>
        !state.lost && !state.released && this.now() - state.refreshedAt < this.kv.ttlMs * HELD_FRACTION,
      release: () => this.releaseLease(state),
    };
  }

  private async releaseLease(state: LeaseState): Promise<void> {
    if (this.leases.get(state.key) !== state) return;
    state.released = true;
    this.leases.delete(state.key);
    if (!state.lost) await this.kv.delete('leases', state.key, state.revision);
  }

  /**
   * Rewrites every lease at its revision; one that someone else wrote meanwhile is lost. Each
   * lease on its own: a write the store is slow to answer (a restarted JetStream takes seconds)
   * holds up no other. One that fails is tried again soon (TTL/20), not a whole period later:
   * after a NATS restart the store answers again well within a TTL, and a lease refreshed
   * only every TTL/3, each try waiting out its timeout, could lapse meanwhile.
   */
  private refresh(): void {
    if (this.closed) return;
    for (const state of [...this.leases.values()]) if (!state.refreshing) void this.refreshLease(state);
  }

  private async refreshLease(state: LeaseState): Promise<void> {
    state.refreshing = true;
    try {
      let revision = await this.kv.update('leases', state.key, state.value, state.revision);
      // Gone (expired while we could not refresh) and nobody took it: it is ours again.
      revision ??= await this.kv.create('leases', state.key, state.value);
      if (this.leases.get(state.key) !== state) return;
      if (revision === undefined) {
        state.lost = true;
        this.leasesLost++;
        this.leases.delete(state.key);
        this.logger.warn({ key: state.key }, 'lease lost: another node holds it');
        state.onLost?.();
      } else {
        state.revision = revision;
        state.refreshedAt = this.now();
      }
    } catch (err) {
      this.refreshFailures++;
      this.logger.warn({ err, key: state.key }, 'lease refresh failed (will retry)');
      this.retrySoon();
    } finally {
      state.refreshing = false;
    }
  }

  private retrySoon(): void {
    if (this.retry || this.closed) return;
    this.retry = setTimeout(
      () => {
        this.retry = undefined;
        this.refresh();
      },
      Math.max(10, Math.floor(this.kv.ttlMs / 20)),
    );
    this.retry.unref();
  }

  /** Writes a sessions entry whatever it held; returns what it held. */
  private async write(key: string, value: Uint8Array): Promise<KvEntry | undefined> {
    for (let i = 0; i < WRITE_TRIES; i++) {
      const current = await this.kv.get('sessions', key);
      const revision = current
        ? await this.kv.update('sessions', key, value, current.revision)
        : await this.kv.create('sessions', key, value);
      if (revision !== undefined) return current;
    }
    throw new RegistryError('ERR_REGISTRY_CONFLICT', `could not write ${key}: it keeps changing`);
  }

  private async releaseIfHeld(key: string, gateway: Holder): Promise<boolean> {
    const current = await this.kv.get('sessions', key);
    if (!current || !sameHolder(decode<{ gateway: Holder }>(current).gateway, gateway)) return false;
    return this.kv.delete('sessions', key, current.revision);
  }

  private async live(holder: Holder): Promise<boolean> {
    const entry = await this.kv.get('leases', nodeKey(holder.id));
    return entry !== undefined && decode<NodeInfo>(entry).instance === holder.instance;
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

/** The registry's counts as Prometheus metrics in `registry`, read when scraped. */
export function registryMetrics(registry: Registry, cluster: Pick<ClusterRegistry, 'stats'>): void {
  new Counter({
    name: 'wyvern_registry_lookups_total',
    help: 'Cluster registry lookups, by what was looked up (node, zone, session, character, resume token).',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, n] of Object.entries(cluster.stats().lookups)) this.inc({ kind }, n);
    },
  });
  new Gauge({
    name: 'wyvern_registry_leases',
    help: 'Leases (node entry, zone claims) this process holds.',
    registers: [registry],
    collect() {
      this.set(cluster.stats().leasesHeld);
    },
  });
  new Counter({
    name: 'wyvern_registry_leases_lost_total',
    help: 'Leases found taken by another process.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(cluster.stats().leasesLost);
    },
  });
  new Counter({
    name: 'wyvern_registry_refresh_failures_total',
    help: 'Lease refreshes that failed for want of the store (retried).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(cluster.stats().refreshFailures);
    },
  });
}

/** The event for a key's new entry, or for its end (`ended` says how) when there is none. */
function toEvent(key: string, entry: KvEntry | undefined, ended: EntryEnd): RegistryEvent | undefined {
  const dot = key.indexOf('.');
  const kind = key.slice(0, dot);
  const id = key.slice(dot + 1);
  if (kind === 'node') {
    return entry
      ? { type: 'node', id, node: decode<NodeInfo>(entry) }
      : { type: 'node', id, node: undefined, ended };
  }
  if (kind === 'zone') {
    return entry
      ? { type: 'zone', zone: id, claim: decode<ZoneClaim>(entry) }
      : { type: 'zone', zone: id, claim: undefined, ended };
  }
  return undefined;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
