/**
 * The frames of the tick's messages (messages.ts decides which events become which packets):
 * each message is encoded once into the scratch buffer and copied to each of its
 * recipients, after the recipient's WorldUpdate, or before it for a player entering the
 * world. A droppable one is skipped for a recipient that is behind.
 */
import type { Writer } from '../../shared/codec/writer.js';
import { byName, type ServerPacket } from '../../shared/protocol/index.js';
import type { WorldUpdateFrames } from './frames.js';
import type { Message, MessageSink } from './messages.js';
import type { OutboxStats, Recipients } from './recipient.js';

export class MessageFrames {
  /** Messages after the tick's WorldUpdate, and those of a player entering, before it. */
  readonly after: MessageSink = this.sink(true);
  readonly before: MessageSink = this.sink(false);
  /** Each message's frame this tick: [start, end) in the scratch buffer. */
  private readonly frames = new Map<Message, { start: number; end: number }>();

  constructor(
    private readonly scratch: Writer,
    private readonly recipients: Recipients,
    private readonly updates: WorldUpdateFrames,
    private readonly stats: OutboxStats,
  ) {}

  /** Forgets the tick's encodings (the scratch buffer is reset with them). */
  clear(): void {
    this.frames.clear();
  }

  /** Appends a message frame (encoded once per tick), after the recipient's WorldUpdate unless `afterUpdate` is false. */
  private sink(afterUpdate: boolean): MessageSink {
    return {
      to: (id, msg) => this.message(id, msg, afterUpdate),
      toEach: (ids, also, msg) => {
        for (let i = 0; i < ids.length; i++) this.message(ids[i]!, msg, afterUpdate);
        if (also !== 0) this.message(also, msg, afterUpdate);
      },
      toZone: (msg) => {
        for (const r of this.recipients.byId.values()) this.message(r.player.id, msg, afterUpdate);
      },
    };
  }

  private message(playerId: number, msg: Message, afterUpdate: boolean): void {
    const r = this.recipients.touch(playerId);
    if (!r) return;
    if (afterUpdate && !r.opened) {
      // Nothing yet this tick: an empty WorldUpdate still opens the batch with its time.
      this.updates.open(r);
      this.updates.close(r);
    }
    const def = byName(msg.packet) as ServerPacket;
    let frame = this.frames.get(msg);
    if (!frame) {
      // Into the tick's scratch buffer: no allocation per message.
      const w = this.scratch;
      const start = w.pos;
      def.write(w, msg.data as never);
      frame = { start, end: w.pos };
      this.frames.set(msg, frame);
    }
    const size = frame.end - frame.start;
    if (def.delivery === 'droppable' && r.behind) {
      r.conn.skipped(def.opcode, size);
      this.stats.dropped += size;
      return;
    }
    r.conn.out.rawRange(this.scratch.buf, frame.start, frame.end);
  }
}
