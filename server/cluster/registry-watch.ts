/**
 * The registry's watch on the "leases" bucket: every node and zone claim at the start, then
 * each change as a RegistryEvent. The store tells of writes and deletes but not of expiries,
 * so an entry not seen rewritten for a TTL is looked up again and reported lapsed when gone.
 */
import type { Logger } from '../log.js';
import {
  decode,
  type EntryEnd,
  type KvBackend,
  type KvEntry,
  type NodeInfo,
  type RegistryEvent,
  type Watch,
  type ZoneClaim,
} from './registry-entries.js';

/** What was last reported of a key: its revision and bytes, and when it was last seen written. */
interface Seen {
  revision: number;
  value: Uint8Array;
  at: number;
}

class LeaseWatch implements Watch {
  private readonly seen = new Map<string, Seen>();
  private changes: Watch | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(
    private readonly kv: KvBackend,
    private readonly handler: (event: RegistryEvent) => void,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  async start(): Promise<void> {
    // Only a holder's release deletes a lease: the watch's deletions are releases.
    this.changes = await this.kv.watch('leases', (key, entry) => this.report(key, entry, 'released'));
    for (const key of await this.kv.keys('leases', '')) {
      const entry = await this.kv.get('leases', key);
      if (entry) this.report(key, entry, 'released');
    }
    this.expiry = setInterval(() => void this.checkExpiry(), Math.max(10, Math.floor(this.kv.ttlMs / 4)));
    this.expiry.unref();
  }

  stop(): void {
    clearInterval(this.expiry);
    this.changes?.stop();
  }

  private report(key: string, entry: KvEntry | undefined, ended: EntryEnd): void {
    const last = this.seen.get(key);
    if (entry) {
      if (last && last.revision >= entry.revision) return;
      this.seen.set(key, { revision: entry.revision, value: entry.value, at: this.now() });
      // A refresh rewrites the same bytes: the watcher hears of changes, not heartbeats.
      if (last && sameBytes(last.value, entry.value)) return;
    } else {
      if (!last) return;
      this.seen.delete(key);
    }
    const event = toEvent(key, entry, ended);
    if (!event) return;
    try {
      this.handler(event);
    } catch (err) {
      this.logger.error({ err, key }, 'registry watch handler failed');
    }
  }

  /** Looks up each entry not seen written for a TTL: rewritten unseen, changed, or gone. */
  private async checkExpiry(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      for (const [key, last] of this.seen) {
        if (this.now() - last.at < this.kv.ttlMs) continue;
        const entry = await this.kv.get('leases', key);
        if (entry) {
          if (entry.revision === last.revision) last.at = this.now();
          else this.report(key, entry, 'lapsed');
        } else this.report(key, undefined, 'lapsed');
      }
    } catch (err) {
      this.logger.debug({ err }, 'registry expiry check failed (will retry)');
    } finally {
      this.checking = false;
    }
  }
}

/** Watches the leases bucket of `kv` for `handler` until stopped. */
export async function watchLeases(
  kv: KvBackend,
  handler: (event: RegistryEvent) => void,
  logger: Logger,
  now: () => number,
): Promise<Watch> {
  const watch = new LeaseWatch(kv, handler, logger, now);
  await watch.start();
  return watch;
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
