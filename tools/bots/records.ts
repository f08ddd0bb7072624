/**
 * The bots' reading of WorldUpdate records: the receive fast path of thousands of bots on one
 * core. The layout is read by the SDK's own record reader (visitRecords, with the layout in
 * shared/protocol/records.ts), the one the client's decoder builds its records with; the bots
 * ask it for numbers only, so nothing is allocated: spawn names are stepped over, and path
 * waypoints too unless the bot keeps motion references.
 *
 * The head's deltas, the moveBy records and HERE paths are resolved through the client's
 * MotionRefs (shared/protocol/motion-refs.ts), which keeps each entity's motion reference:
 * the bot measures where a moveBy puts its walker, so it keeps the references too.
 * Coordinates are handed over quantized (the u16 on the wire), as the latency match wants
 * them. The CRC is not checked (the client's decoder checks every other frame; a WorldUpdate
 * that does not parse is reported, not trusted).
 */
import { DecodeError } from '../../shared/codec/errors.js';
import { HEADER_SIZE } from '../../shared/codec/frame.js';
import { Reader } from '../../shared/codec/reader.js';
import {
  MOVING,
  RecordDetail,
  RecordKind,
  visitRecords,
  WorldUpdate,
  type MotionRefs,
  type RecordVisitor as WireVisitor,
} from '../../shared/protocol/index.js';

/** Offset of a WorldUpdate's head (tick and time) from the start of its frame. */
export const WORLD_UPDATE_BODY = HEADER_SIZE;

/** What a walk hands to the bot: one call per record of interest. */
export interface RecordVisitor {
  /**
   * A movement state (kind 0, or a resolved moveBy) at quantized (qx, qy); `tag` carries
   * MOVING / JUMP. `spawned`: it is the motion half of a spawn block (not a send).
   */
  move(id: number, qx: number, qy: number, tag: number, spawned: boolean): void;
  /** A path (kind 1) starting at quantized (qx, qy). */
  path(id: number, qx: number, qy: number): void;
  spawn(id: number, mob: boolean, alive: boolean): void;
  despawn(id: number): void;
  death(id: number): void;
  /** Alive again at quantized (qx, qy). */
  respawn(id: number, qx: number, qy: number): void;
}

/** Counts a walk adds to (the swarm's counters are one). */
export interface RecordTally {
  /** Every record. */
  records: number;
  /** Move and path records. */
  movementRecords: number;
  /** Bytes of the move and path records (id delta included). */
  movementRecordBytes: number;
  /** Bytes of the records that are not movement (spawns, despawns, health, deaths, respawns). */
  otherRecordBytes: number;
  /** Of the movement records: paths (mobs), and their bytes. */
  pathRecords: number;
  pathRecordBytes: number;
  /** Of the movement records: the motion half of a spawn block, and their bytes. */
  spawnMotionRecords: number;
  spawnMotionBytes: number;
}

/**
 * The SDK reader's visitor for one walk at a time: keeps the references, counts, and hands
 * the bot what it measures.
 */
class Walk implements WireVisitor {
  readonly reader = new Reader();
  refs!: MotionRefs;
  v!: RecordVisitor;
  tally!: RecordTally;
  resolve = true;
  /** Where the record being read started: the previous one's end. */
  private start = 0;
  /** The id of the spawn just read (its motion record follows), else -1. */
  private spawned = -1;

  begin(refs: MotionRefs, v: RecordVisitor, tally: RecordTally, resolve: boolean): void {
    this.refs = refs;
    this.v = v;
    this.tally = tally;
    this.resolve = resolve;
    this.start = this.reader.pos;
    this.spawned = -1;
  }

  move(id: number, flags: number, qx: number, qy: number, qa: number, qs: number, age: number): void {
    if (this.resolve) this.refs.setRef(id, qx, qy, qa, (flags & MOVING) !== 0, qs, age < 0 ? 0 : age);
    this.tally.movementRecords++;
    this.v.move(id, qx, qy, flags, this.spawned === id);
    this.counted(RecordKind.Move, id);
  }

  moveBy(id: number, flags: number, dx: number, dy: number, qa: number, qs: number, age: number): void {
    this.tally.movementRecords++;
    const refs = this.refs;
    if (this.resolve && refs.moveBy(id, dx, dy, qa, (flags & MOVING) !== 0, qs, age < 0 ? 0 : age)) {
      this.v.move(id, refs.qx, refs.qy, flags & MOVING, false);
    }
    this.counted(RecordKind.MoveBy, id);
  }

  path(
    id: number,
    qx: number,
    qy: number,
    qs: number,
    _n: number,
    pts: readonly number[],
    age: number,
  ): void {
    this.tally.movementRecords++;
    const refs = this.refs;
    if (!this.resolve) {
      if (qx >= 0) this.v.path(id, qx, qy);
    } else if (qx < 0) {
      if (refs.pathHere(id, qs, pts, age < 0 ? 0 : age)) this.v.path(id, refs.qx, refs.qy);
    } else {
      refs.setPath(id, qx, qy, qs, pts, age < 0 ? 0 : age);
      this.v.path(id, qx, qy);
    }
    this.counted(RecordKind.Path, id);
  }

  spawn(
    id: number,
    alive: boolean,
    entity: number,
    _template: number,
    _name: string,
    _level: number,
    _health: number,
    _maxHealth: number,
    qs: number,
  ): void {
    if (this.resolve) this.refs.spawn(id, qs);
    this.v.spawn(id, entity === 1, alive);
    this.counted(RecordKind.Spawn, id);
  }

  despawn(id: number): void {
    if (this.resolve) this.refs.forget(id);
    this.v.despawn(id);
    this.counted(RecordKind.Despawn, id);
  }

  health(id: number): void {
    this.counted(RecordKind.Health, id);
  }

  death(id: number): void {
    this.v.death(id);
    this.counted(RecordKind.Death, id);
  }

  respawn(id: number, qx: number, qy: number): void {
    this.v.respawn(id, qx, qy);
    this.counted(RecordKind.Respawn, id);
  }

  /** Adds the record just read (it ends where the reader stands) to the tally. */
  private counted(kind: number, id: number): void {
    const tally = this.tally;
    const end = this.reader.pos;
    const bytes = end - this.start;
    this.start = end;
    tally.records++;
    if (kind === RecordKind.Move || kind === RecordKind.Path || kind === RecordKind.MoveBy) {
      tally.movementRecordBytes += bytes;
      if (kind === RecordKind.Path) {
        tally.pathRecords++;
        tally.pathRecordBytes += bytes;
      }
      if (this.spawned === id) {
        tally.spawnMotionRecords++;
        tally.spawnMotionBytes += bytes;
      }
    } else tally.otherRecordBytes += bytes;
    // A spawn's motion record comes right after it, with the same id.
    this.spawned = kind === RecordKind.Spawn ? id : -1;
  }
}

const walk = new Walk();

/**
 * Walks a WorldUpdate payload in buf[start, end): its head into `refs`, then its records,
 * calling `v` and adding to `tally`. Without `resolve` the motion references are left alone
 * (a moveBy reaches no visitor): a bot that does not measure latency needs no positions of
 * players. Returns false when it does not parse (a DecodeError of the SDK's reader: a record
 * running past `end`, a bad varint, a flag or number out of its range).
 */
export function walkRecords(
  buf: Uint8Array,
  start: number,
  end: number,
  refs: MotionRefs,
  v: RecordVisitor,
  tally: RecordTally,
  resolve = true,
): boolean {
  const r = walk.reader.reset(buf, start, end);
  try {
    const tickDelta = WorldUpdate.fields.tick.read(r);
    const timeDelta = WorldUpdate.fields.time.read(r);
    refs.advance(tickDelta, timeDelta);
    walk.begin(refs, v, tally, resolve);
    visitRecords(r, walk, resolve ? RecordDetail.Points : RecordDetail.Numbers);
    return true;
  } catch (e) {
    if (e instanceof DecodeError) return false;
    throw e;
  }
}
