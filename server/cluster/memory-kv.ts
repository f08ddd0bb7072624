/**
 * The registry's storage in one process: JetStream KV's behaviour over maps, for the embedded
 * default and tests. One MemoryKvStore stands for the server; each registry opens its own
 * MemoryKv on it (as each process has its own connection), so closing one leaves the others.
 * Like JetStream KV: revisions grow per bucket, a lease entry silently expires ttlMs after its
 * last write, watchers hear writes and deletes (after the writer's call returns), not expiries.
 */
import type { BucketName, KvBackend, KvEntry, Watch } from './registry.js';

interface Stored {
  value: Uint8Array;
  revision: number;
  writtenAt: number;
}

interface Bucket {
  entries: Map<string, Stored>;
  revision: number;
  watchers: Set<(key: string, entry: KvEntry | undefined) => void>;
}

export interface MemoryKvStoreOptions {
  /** How long a lease entry lives after its last write. */
  ttlMs: number;
  now?: () => number;
}

export class MemoryKvStore {
  readonly ttlMs: number;
  private readonly now: () => number;
  private readonly buckets: Record<BucketName, Bucket> = { leases: newBucket(), sessions: newBucket() };

  constructor(options: MemoryKvStoreOptions) {
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
  }

  /** A handle for one registry. */
  open(): KvBackend {
    return new MemoryKv(this);
  }

  get(name: BucketName, key: string): KvEntry | undefined {
    const stored = this.live(name, key);
    return stored && { key, value: stored.value, revision: stored.revision };
  }

  write(name: BucketName, key: string, value: Uint8Array, expected: number): number | undefined {
    const current = this.live(name, key)?.revision ?? 0;
    if (current !== expected) return undefined;
    const bucket = this.buckets[name];
    const revision = ++bucket.revision;
    // A private copy: the caller may reuse its bytes, as it may with a network store.
    const stored = { value: value.slice(), revision, writtenAt: this.now() };
    bucket.entries.set(key, stored);
    this.notify(bucket, key, { key, value: stored.value, revision });
    return revision;
  }

  delete(name: BucketName, key: string, expected: number): boolean {
    const bucket = this.buckets[name];
    if (this.live(name, key)?.revision !== expected) return false;
    bucket.entries.delete(key);
    bucket.revision++;
    this.notify(bucket, key, undefined);
    return true;
  }

  keys(name: BucketName, prefix: string): string[] {
    return [...this.buckets[name].entries.keys()].filter((k) => k.startsWith(prefix) && this.live(name, k));
  }

  watch(name: BucketName, onChange: (key: string, entry: KvEntry | undefined) => void): () => void {
    const watchers = this.buckets[name].watchers;
    watchers.add(onChange);
    return () => watchers.delete(onChange);
  }

  private live(name: BucketName, key: string): Stored | undefined {
    const bucket = this.buckets[name];
    const stored = bucket.entries.get(key);
    if (stored && name === 'leases' && this.now() - stored.writtenAt >= this.ttlMs) {
      bucket.entries.delete(key);
      return undefined;
    }
    return stored;
  }

  private notify(bucket: Bucket, key: string, entry: KvEntry | undefined): void {
    for (const watcher of bucket.watchers)
      queueMicrotask(() => bucket.watchers.has(watcher) && watcher(key, entry));
  }
}

function newBucket(): Bucket {
  return { entries: new Map(), revision: 0, watchers: new Set() };
}

class MemoryKv implements KvBackend {
  private readonly stops = new Set<() => void>();

  constructor(private readonly store: MemoryKvStore) {}

  get ttlMs(): number {
    return this.store.ttlMs;
  }

  async get(bucket: BucketName, key: string): Promise<KvEntry | undefined> {
    return this.store.get(bucket, key);
  }

  async create(bucket: BucketName, key: string, value: Uint8Array): Promise<number | undefined> {
    return this.store.write(bucket, key, value, 0);
  }

  async update(
    bucket: BucketName,
    key: string,
    value: Uint8Array,
    revision: number,
  ): Promise<number | undefined> {
    return this.store.write(bucket, key, value, revision);
  }

  async delete(bucket: BucketName, key: string, revision: number): Promise<boolean> {
    return this.store.delete(bucket, key, revision);
  }

  async keys(bucket: BucketName, prefix: string): Promise<string[]> {
    return this.store.keys(bucket, prefix);
  }

  async watch(
    bucket: BucketName,
    onChange: (key: string, entry: KvEntry | undefined) => void,
  ): Promise<Watch> {
    const stop = this.store.watch(bucket, onChange);
    this.stops.add(stop);
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
