/**
 * A Writer for bus messages that are sent without being copied: `publish` lends the bus the
 * very buffer the message was written into (a view of it, Bus.publish's `release`), and the
 * writer goes on in a spare buffer. A buffer comes back to the spares only once the bus
 * releases it (the in-process bus after the message's last handler has run; NATS once it has
 * its own copy), so a buffer is never written while anyone may still read it. A bus that never
 * releases simply keeps what it was given, and the writer takes a new buffer each time.
 */
import { Writer } from '../../shared/codec/writer.js';
import type { Bus } from './bus.js';
import type { Subject } from './subjects.js';

/** Released buffers kept for reuse; more than this go to the collector. */
const SPARES_MAX = 2;

interface Backing {
  readonly buf: Uint8Array;
  readonly view: DataView;
}

export class MessageWriter extends Writer {
  private readonly spares: Backing[] = [];

  /**
   * Publishes [0, pos) on `subject` without copying it, and carries on in another buffer, into
   * which the first `keep` bytes (a message head to write the next message behind) are copied.
   */
  publish(bus: Pick<Bus, 'publish'>, subject: Subject, keep = 0): void {
    const lent: Backing = { buf: this.buf, view: this.view };
    const bytes = this.buf.subarray(0, this.pos);
    const spare = this.spares.pop();
    if (spare && spare.buf.length >= keep) {
      this.buf = spare.buf;
      this.view = spare.view;
    } else {
      this.buf = new Uint8Array(lent.buf.length);
      this.view = new DataView(this.buf.buffer);
    }
    if (keep > 0) this.buf.set(lent.buf.subarray(0, keep));
    this.pos = keep;
    let back = false;
    bus.publish(subject, bytes, () => {
      // Once only, whatever the bus does: a buffer twice among the spares would be written twice.
      if (back) return;
      back = true;
      if (this.spares.length < SPARES_MAX) this.spares.push(lent);
    });
  }
}
