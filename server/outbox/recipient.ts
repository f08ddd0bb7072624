/**
 * The outbox's book of recipients: who gets bytes, where they go, and each one's state for
 * the tick being written. A recipient is touched once per tick at its first write: its
 * buffer's soft-limit verdict is taken then and holds for the whole tick, and its appends
 * are committed once at the end.
 */
import type { Writer } from '../../shared/codec/writer.js';
import type { Entity, Player } from '../world/index.js';
import type { StepClock } from './messages.js';

/**
 * Where one client's bytes go: its Connection when the socket is in this process, or the
 * zone host's buffer for a session held by a gateway (zone/gateway-link.ts), which carries
 * the gateway's soft-limit verdict and hands the bytes on in the gateway's tick message. A
 * Connection is one as it is.
 */
export interface OutboxSink {
  /** Frames appended at out.pos are the client's once commit() is called. */
  readonly out: Writer;
  /** Over the soft limit: skip droppable sections this tick. */
  behind(): boolean;
  /** A droppable section was skipped. */
  skipped(opcode: number, bytes: number): void;
  /** The appends of this tick are done. */
  commit(): boolean;
  readonly closed: boolean;
}

export interface OutboxStats {
  /** Bytes encoded once and shared this tick (cell blocks, spawn blocks, messages). */
  encoded: number;
  /** Bytes appended to connections this tick. */
  queued: number;
  /** Bytes skipped for clients that were behind. */
  dropped: number;
  /** Connections written to this tick. */
  recipients: number;
  /** Entity records encoded this tick (once each, however many observers). */
  records: number;
}

/**
 * A run of records in the scratch buffer, starting with a BASE record: its first and last
 * ids, and the length of its first id's varint (what an observer's frame may write anew).
 */
export interface Run {
  start: number;
  end: number;
  first: number;
  last: number;
  skip: number;
}

/** An entity gone from a cell this tick: every observer of the cell is told why. */
export interface Removal {
  readonly entity: Entity;
  readonly reason: 'left' | 'corpse';
}

export interface Recipient {
  readonly conn: OutboxSink;
  readonly player: Player;
  /** The tick this recipient was last written in. */
  tick: number;
  /** Offset in conn.out of the open WorldUpdate frame, -1 when none is open. */
  frameStart: number;
  /** Whether a WorldUpdate frame was opened this tick. */
  opened: boolean;
  /** conn.out.pos when first touched this tick. */
  startPos: number;
  /** Over the soft limit at the first write of this tick. */
  behind: boolean;
  /** Motion was skipped: send the view's motion state once caught up. */
  resync: boolean;
  /** Entering the world this tick: its own messages (ZoneInfo, EnterWorld...) go before its first WorldUpdate. */
  entering: boolean;
  /** Tick and time of its previous WorldUpdate (or EnterWorld): the next head counts from them. */
  lastTick: number;
  lastTime: number;
  /** This tick's view changes in order: an entity seen, the id of one no longer seen, or one gone. */
  readonly ops: (Entity | number | Removal)[];
  /** This tick's cell runs for it, written in id order when its frame is assembled. */
  readonly runs: Run[];
  /** The id of the last record written in its open frame (0 when none). */
  lastId: number;
}

export class Recipients {
  /** By player id (a character id: sparse, so a Map rather than an array). */
  readonly byId = new Map<number, Recipient>();
  /** Those written to this tick, in the order of their first write. */
  readonly touched: Recipient[] = [];
  /** Those whose motion was skipped, owed a resync once they catch up. */
  readonly resyncing = new Set<Recipient>();

  constructor(private readonly clock: StepClock) {}

  add(player: Player, conn: OutboxSink): void {
    this.byId.set(player.id, {
      conn,
      player,
      tick: -1,
      frameStart: -1,
      opened: false,
      startPos: 0,
      behind: false,
      resync: false,
      entering: false,
      lastTick: 0,
      lastTime: 0,
      ops: [],
      runs: [],
      lastId: 0,
    });
  }

  remove(playerId: number): void {
    const r = this.byId.get(playerId);
    if (r) this.resyncing.delete(r);
    this.byId.delete(playerId);
  }

  /** The recipient for this tick's writes, its tick state set at the first; none when gone or closed. */
  touch(playerId: number): Recipient | undefined {
    const r = this.byId.get(playerId);
    if (!r || r.conn.closed) return undefined;
    if (r.tick !== this.clock.tick) {
      r.tick = this.clock.tick;
      r.frameStart = -1;
      r.opened = false;
      r.startPos = r.conn.out.pos;
      r.behind = r.conn.behind();
      this.touched.push(r);
    }
    return r;
  }

  /** Its motion was skipped: it is owed its view's motion once it has caught up. */
  owe(r: Recipient): void {
    r.resync = true;
    this.resyncing.add(r);
  }

  /** Its resync is being written. */
  settle(r: Recipient): void {
    r.resync = false;
    this.resyncing.delete(r);
  }

  /** Commits each touched recipient's appends, counting them, and ends its tick. */
  commit(stats: OutboxStats): void {
    for (const r of this.touched) {
      stats.queued += r.conn.out.pos - r.startPos;
      r.conn.commit();
      r.ops.length = 0;
      r.entering = false;
    }
    stats.recipients = this.touched.length;
    this.touched.length = 0;
  }
}
