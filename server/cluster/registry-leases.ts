/**
 * The registry's lease keeping: the "leases" entries this process holds (its node entry, its
 * zone claims), each rewritten at its revision every TTL/3 so the store keeps it, found lost
 * when another node wrote it meanwhile, and deleted when released.
 */
import type { Logger } from '../log.js';
import type { KvBackend } from './registry-entries.js';

/** How long a dead process's node entry and zone claims outlive it, by default. */
export const DEFAULT_LEASE_TTL_MS = 10_000;
/**
 * A lease counts as held for this part of the TTL after its last refresh. The store's TTL runs
 * from when the write reached it, which is before its answer reached us: a holder stops a little
 * early rather than run on for a moment beside the node that takes the entry at its expiry.
 */
export const HELD_FRACTION = 0.9;

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

/** Keeps the leases of one registry alive until they are released or it is closed. */
export class LeaseKeeper {
  private readonly leases = new Map<string, LeaseState>();
  private readonly timer: NodeJS.Timeout;
  /** A refresh asked again soon after one failed (see refresh). */
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private lostCount = 0;
  private failures = 0;

  constructor(
    private readonly kv: KvBackend,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {
    this.timer = setInterval(() => this.refresh(), Math.max(10, Math.floor(kv.ttlMs / 3)));
    this.timer.unref();
  }

  /** Leases held now, found lost since the start, and refreshes that failed for want of the store. */
  stats(): { held: number; lost: number; refreshFailures: number } {
    return { held: this.leases.size, lost: this.lostCount, refreshFailures: this.failures };
  }

  /** Starts keeping an entry just written at `revision`. */
  hold(key: string, value: Uint8Array, revision: number, options: LeaseOptions): Lease {
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
      release: () => this.release(state),
    };
  }

  /** Stops refreshing; the leases are kept in hand for releaseAll. */
  stop(): void {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.retry);
  }

  /** Lets go of every lease: deleted from the store when `release`, else left to expire (a crash). */
  async releaseAll(release: boolean): Promise<void> {
    if (release) {
      for (const lease of [...this.leases.values()]) await this.release(lease).catch(() => {});
    }
    this.leases.clear();
  }

  private async release(state: LeaseState): Promise<void> {
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
        this.lostCount++;
        this.leases.delete(state.key);
        this.logger.warn({ key: state.key }, 'lease lost: another node holds it');
        state.onLost?.();
      } else {
        state.revision = revision;
        state.refreshedAt = this.now();
      }
    } catch (err) {
      this.failures++;
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
}
