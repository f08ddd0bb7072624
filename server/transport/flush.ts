/**
 * One flush scheduler per server. Connections with queued frames mark themselves dirty; the
 * scheduler writes them all once per turn of the event loop (requests coalesce into one
 * deferred call), and the world tick may call `flushAll()` at its end to write at once.
 *
 * Connections are visited round-robin: each flush starts one position further into the
 * dirty list, so the same client is not always written first when the pipe is contended.
 */
import type { Flushable, FlushRequester } from './connection.js';

export type Defer = (fn: () => void) => void;

export class FlushScheduler implements FlushRequester {
  private dirty: Flushable[] = [];
  private readonly isDirty = new Set<Flushable>();
  private scheduled = false;
  private rotation = 0;

  /** `defer` runs the coalesced flush later; tests pass one that does nothing and flush by hand. */
  constructor(private readonly defer: Defer = (fn) => void setImmediate(fn)) {}

  markDirty(conn: Flushable): void {
    if (this.isDirty.has(conn)) return;
    this.isDirty.add(conn);
    this.dirty.push(conn);
    this.request();
  }

  /** Asks for a flush on the next turn (at most one is pending). */
  request(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.defer(() => {
      this.scheduled = false;
      this.flushAll();
    });
  }

  get pending(): number {
    return this.dirty.length;
  }

  /** Writes every dirty connection now, starting one further round each call. */
  flushAll(): void {
    const list = this.dirty;
    if (list.length === 0) return;
    this.dirty = [];
    this.isDirty.clear();
    const n = list.length;
    const start = this.rotation % n;
    this.rotation = (this.rotation + 1) % 0x40000000;
    for (let i = 0; i < n; i++) list[(start + i) % n]!.flush();
  }
}
