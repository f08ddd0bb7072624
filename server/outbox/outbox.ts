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
import type { ServerPacket } from '../../shared/protocol/index.js';
import type { Connection } from '../transport/connection.js';
import type { WorldEvent, WorldMessage } from '../world/index.js';

/** Where a player's frames go; undefined when the player has no live connection. */
export type Recipients = (playerId: number) => Connection | undefined;

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
  private frames = new Map<WorldMessage, Uint8Array>();
  /** The tick each connection last got its WorldTick frame in. */
  private tickOf = new WeakMap<Connection, number>();
  private tick = 0;
  private tickFrame: Uint8Array | undefined;
  private serverTime = 0;

  constructor(
    private readonly recipients: Recipients,
    /** Every player in the zone, for zone-wide messages. */
    private readonly zoneMembers: () => Iterable<number>,
  ) {}

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
        case 'spawn':
        case 'despawn':
          this.send(e.type === 'toPlayer' ? e.playerId : e.observerId, e.msg);
          break;
        case 'toObservers':
          for (const id of e.observers) this.send(id, e.msg);
          if (e.self) this.send(e.entityId, e.msg);
          break;
        case 'toPlayers':
          for (const id of e.playerIds) this.send(id, e.msg);
          break;
        case 'toZone':
          for (const id of this.zoneMembers()) this.send(id, e.msg);
          break;
        default:
          // joined, save, leftWorld: session bookkeeping, handled by the zone host.
          break;
      }
    }
    this.frames.clear();
  }

  private send(playerId: number, msg: WorldMessage): void {
    const conn = this.recipients(playerId);
    if (!conn || conn.closed) return;
    const def = byName(msg.packet) as ServerPacket;
    let frame = this.frames.get(msg);
    if (!frame) {
      frame = def.encode(msg.data as never);
      this.frames.set(msg, frame);
      this.stats.encoded++;
    }
    if (this.tickOf.get(conn) !== this.tick) {
      this.tickOf.set(conn, this.tick);
      this.tickFrame ??= WorldTick.encode({ tick: this.tick, serverTime: this.serverTime });
      conn.send(this.tickFrame, WorldTick.delivery);
      this.stats.recipients++;
    }
    if (conn.send(frame, def.delivery)) this.stats.queued++;
    else this.stats.dropped++;
  }
}
