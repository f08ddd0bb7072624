/**
 * The only place world events become bytes. Per tick:
 *   - each event's recipients come from the event itself (the world decided who observes
 *     what; no game decisions here);
 *   - each distinct message is encoded once into a frame, shared by all its recipients;
 *   - a recipient's first frame of the tick is preceded by a WorldTick frame (tick + server
 *     time) so clients can place the batch on the server's timeline;
 *   - frames are queued on the recipient's connection with the packet's declared delivery;
 *     the connection drops droppable frames while it is behind and writes the rest in one
 *     write when the flush scheduler runs after the tick.
 */
import { byName, WorldTick } from '../../shared/protocol/index.js';
import type { Delivery, ServerPacket } from '../../shared/protocol/index.js';
import type { Connection } from '../transport/connection.js';
import type { WorldEvent, WorldMessage } from '../world/index.js';

/** A player's connection, and the tick it last got a WorldTick frame in. */
interface Recipient {
  readonly conn: Connection;
  tick: number;
}

export interface OutboxStats {
  /** Distinct frames encoded in the last tick. */
  encoded: number;
  /** Frames handed to connections in the last tick (a frame counts once per recipient). */
  queued: number;
  /** Droppable frames a connection refused in the last tick. */
  dropped: number;
  /** Connections that received anything in the last tick. */
  recipients: number;
}

export class Outbox {
  readonly stats: OutboxStats = { encoded: 0, queued: 0, dropped: 0, recipients: 0 };
  private readonly recipients = new Map<number, Recipient>();
  /** Messages already encoded this tick (a message object may reach several events). */
  private frames = new Map<WorldMessage, Uint8Array>();
  private tick = 0;
  private tickFrame: Uint8Array | undefined;
  private serverTime = 0;

  /** From now on, `playerId`'s frames go to `conn`. */
  add(playerId: number, conn: Connection): void {
    this.recipients.set(playerId, { conn, tick: -1 });
  }

  remove(playerId: number): void {
    this.recipients.delete(playerId);
  }

  /** Queues one tick's events on the connections of the players they are for. */
  deliver(events: readonly WorldEvent[], tick: number, serverTime: number): void {
    this.tick = tick;
    this.serverTime = serverTime;
    this.tickFrame = undefined;
    const stats = this.stats;
    stats.encoded = stats.queued = stats.dropped = stats.recipients = 0;
    for (const e of events) {
      switch (e.type) {
        case 'toPlayer':
          this.sendTo(e.playerId, e.msg);
          break;
        case 'spawn':
        case 'despawn':
          this.sendTo(e.observerId, e.msg);
          break;
        case 'toObservers': {
          const def = definition(e.msg);
          const frame = this.frameOf(e.msg, def);
          const ids = e.observers;
          for (let i = 0; i < ids.length; i++) this.queue(ids[i]!, frame, def.delivery);
          if (e.self) this.queue(e.entityId, frame, def.delivery);
          break;
        }
        case 'toPlayers': {
          const def = definition(e.msg);
          const frame = this.frameOf(e.msg, def);
          for (const id of e.playerIds) this.queue(id, frame, def.delivery);
          break;
        }
        case 'toZone': {
          const def = definition(e.msg);
          const frame = this.frameOf(e.msg, def);
          for (const id of this.recipients.keys()) this.queue(id, frame, def.delivery);
          break;
        }
        default:
          // joined, save, leftWorld: session bookkeeping, handled by the zone host.
          break;
      }
    }
    this.frames.clear();
  }

  private sendTo(playerId: number, msg: WorldMessage): void {
    if (!this.recipients.has(playerId)) return;
    const def = definition(msg);
    this.queue(playerId, this.frameOf(msg, def), def.delivery);
  }

  private frameOf(msg: WorldMessage, def: ServerPacket): Uint8Array {
    let frame = this.frames.get(msg);
    if (!frame) {
      frame = def.encode(msg.data as never);
      this.frames.set(msg, frame);
      this.stats.encoded++;
    }
    return frame;
  }

  private queue(playerId: number, frame: Uint8Array, delivery: Delivery): void {
    const r = this.recipients.get(playerId);
    if (!r) return;
    const conn = r.conn;
    if (conn.closed) return;
    if (r.tick !== this.tick) {
      r.tick = this.tick;
      this.tickFrame ??= WorldTick.encode({ tick: this.tick, serverTime: this.serverTime });
      conn.send(this.tickFrame, WorldTick.delivery);
      this.stats.recipients++;
    }
    if (conn.send(frame, delivery)) this.stats.queued++;
    else this.stats.dropped++;
  }
}

function definition(msg: WorldMessage): ServerPacket {
  return byName(msg.packet) as ServerPacket;
}
