/**
 * The registry's storage in a cluster: two JetStream key-value buckets (@nats-io/kv) on the
 * bus's NATS connection. "<prefix>_leases" has a bucket TTL (max age), so an entry its writer
 * stopped rewriting disappears; "<prefix>_sessions" keeps entries until deleted. Every process
 * of a cluster must use the same TTL: a bucket made with another is refused when opened.
 * nats-server 2.9 has no per-key TTL or delete markers for expiry, so expiries are silent and
 * the registry watches for them itself.
 */
import { jetstream, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, KvWatchInclude, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { BucketName, KvBackend, KvEntry, Watch } from './registry.js';

export interface JetStreamKvOptions {
  /** Bucket names start with it (a test gives each run its own). Default "wyvern". */
  prefix?: string;
  /** How long a lease entry lives after its last write. */
  ttlMs: number;
}

export class JetStreamKv implements KvBackend {
  private readonly stops = new Set<() => void>();

  private constructor(
    private readonly buckets: Record<BucketName, KV>,
    readonly ttlMs: number,
  ) {}

  /** Opens the buckets, making them if they do not exist. */
  static async open(connection: NatsConnection, options: JetStreamKvOptions): Promise<JetStreamKv> {
    const prefix = options.prefix ?? 'wyvern';
    // A write unanswered for a fifth of the TTL is given up and tried again (the registry's
    // refresh): waiting out the client's 5 s default, twice, is a whole 10 s lease.
    const kvm = new Kvm(
      jetstream(connection, { timeout: Math.min(5_000, Math.max(500, options.ttlMs / 5)) }),
    );
    const leases = await kvm.create(`${prefix}_leases`, {
      ttl: options.ttlMs,
      history: 1,
      description: 'Wyvern live nodes and zone claims (rewritten by their holders, expire when not)',
    });
    const sessions = await kvm.create(`${prefix}_sessions`, {
      history: 1,
      description: 'Wyvern sessions and characters by gateway',
    });
    return new JetStreamKv({ leases, sessions }, options.ttlMs);
  }

  async get(bucket: BucketName, key: string): Promise<KvEntry | undefined> {
    const entry = await this.buckets[bucket].get(key);
    if (!entry || entry.operation !== 'PUT') return undefined;
    return { key, value: entry.value, revision: entry.revision };
  }

  async create(bucket: BucketName, key: string, value: Uint8Array): Promise<number | undefined> {
    return orConflict(this.buckets[bucket].create(key, value), undefined);
  }

  async update(
    bucket: BucketName,
    key: string,
    value: Uint8Array,
    revision: number,
  ): Promise<number | undefined> {
    return orConflict(this.buckets[bucket].update(key, value, revision), undefined);
  }

  async delete(bucket: BucketName, key: string, revision: number): Promise<boolean> {
    return orConflict(
      this.buckets[bucket].delete(key, { previousSeq: revision }).then(() => true),
      false,
    );
  }

  async keys(bucket: BucketName, prefix: string): Promise<string[]> {
    const filter = prefix === '' ? '>' : `${prefix}>`;
    const out: string[] = [];
    for await (const key of await this.buckets[bucket].keys(filter)) out.push(key);
    return out;
  }

  async watch(
    bucket: BucketName,
    onChange: (key: string, entry: KvEntry | undefined) => void,
  ): Promise<Watch> {
    const changes = await this.buckets[bucket].watch({ include: KvWatchInclude.UpdatesOnly });
    const stop = () => changes.stop();
    this.stops.add(stop);
    void (async () => {
      for await (const e of changes) {
        onChange(
          e.key,
          e.operation === 'PUT' ? { key: e.key, value: e.value, revision: e.revision } : undefined,
        );
      }
    })().catch(() => {
      // The iterator ends with an error only when stopped or closed: nothing to report.
    });
    return {
      stop: () => {
        stop();
        this.stops.delete(stop);
      },
    };
  }

  async close(): Promise<void> {
    for (const stop of this.stops) stop();
    this.stops.clear();
  }
}

/** A revision check that failed ("wrong last sequence") gives `fallback`; anything else throws. */
async function orConflict<T, F>(write: Promise<T>, fallback: F): Promise<T | F> {
  try {
    return await write;
  } catch (err) {
    if (
      err instanceof JetStreamApiError &&
      (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
        err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
    ) {
      return fallback;
    }
    throw err;
  }
}
