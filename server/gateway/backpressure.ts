/**
 * The connections' soft-limit verdicts, told to their zone hosts. The hard send limit is the
 * connection's (appending a tick's bytes commits them like any frame, and a connection over it
 * is cut); the soft limit is the zone host's to act on (it skips whole droppable sections
 * while encoding), so after each batch the gateway sends a BEHIND record for each connection
 * whose verdict changed.
 */
import { Behind } from '../cluster/wire.js';
import type { InputOutbox } from './outbox.js';
import { sendsInputs } from './placement.js';
import type { Placement } from './placements.js';

export interface BackpressureDeps {
  readonly outbox: Pick<InputOutbox, 'inputs'>;
  /** Whether the placement is still its session's (not gone, not replaced). */
  readonly current: (p: Placement) => boolean;
}

export class Backpressure {
  /** Placements written to by the batch being handled, and those last reported behind. */
  private readonly written: Placement[] = [];
  private readonly behind = new Set<Placement>();

  constructor(private readonly deps: BackpressureDeps) {}

  /** The batch being handled wrote to the placement's connection. */
  wrote(p: Placement): void {
    this.written.push(p);
  }

  /** The placement has left its gateway's books. */
  forget(p: Placement): void {
    this.behind.delete(p);
  }

  /**
   * Tells the zone hosts of each in-world connection whose soft-limit verdict changed: those
   * just written to (only a write can put one behind) and those behind (a drain brings them
   * back).
   */
  reportBehind(): void {
    for (const p of this.written) this.checkBehind(p);
    this.written.length = 0;
    for (const p of this.behind) this.checkBehind(p);
  }

  private checkBehind(p: Placement): void {
    if (!sendsInputs(p.state) || !this.deps.current(p)) {
      this.behind.delete(p);
      return;
    }
    const behind = p.session.conn.behind();
    if (behind === p.behind) return;
    p.behind = behind;
    if (behind) this.behind.add(p);
    else this.behind.delete(p);
    const w = this.deps.outbox.inputs(p.character.zone);
    if (w) Behind.write(w, { session: p.session.id, behind });
  }
}
