/**
 * The bots' in-place reading of WorldUpdate records: the receive fast path of thousands of
 * bots on one core. A record's fields are read only when the bot measures them; every other
 * field is stepped over by its length (shared/protocol/records.ts has the layout):
 *
 *   payload := tick varint · time varint (deltas) · record*
 *   record  := idDelta varint · tag u8 · fields of the tag's kind (low 3 bits)
 *              id = idDelta with BASE (0x08, a block starts), else previous id + idDelta
 *
 *   kind 0 move     x u16 · y u16 · angle u8 [· speed u16 if SPEED] [· age varint if AGE]
 *   kind 1 path     [x u16 · y u16 unless HERE] [· speed u16 if SPEED] [· count u8 unless ONE] ·
 *                   (x u16 · y u16) × count [· age varint if AGE]
 *   kind 2 spawn    entity u8 · template u16 · name (u8 length + bytes) · level u8 ·
 *                   health varint · maxHealth varint · speed u16 · appearance u8
 *   kind 3 despawn  reason u8
 *   kind 4 health   health varint · maxHealth varint
 *   kind 5 death    killer varint
 *   kind 6 respawn  x u16 · y u16 · health varint · maxHealth varint
 *   kind 7 moveBy   dx zigzag · dy zigzag [· angle u8 unless SAME_ANGLE] [· speed u16 if SPEED]
 *                   [· age varint if AGE]
 *
 * The head's deltas, the moveBy records and HERE paths are resolved through the client's
 * MotionRefs (shared/protocol/motion-refs.ts), which keeps each entity's motion reference:
 * the bot measures where a moveBy puts its walker, so it keeps the references too.
 * Coordinates are handed over quantized (the u16 on the wire), as the latency match wants
 * them. Nothing is allocated; the CRC is not checked (the client's decoder checks every
 * other frame; a WorldUpdate that does not parse is reported, not trusted).
 */
import { HEADER_SIZE } from '../../shared/codec/frame.js';
import {
  AGE,
  ALIVE,
  BASE,
  HERE,
  MOVING,
  ONE,
  RecordKind,
  SAME_ANGLE,
  SPEED,
  unzigzag,
  type MotionRefs,
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

/** Read position shared by the helpers below (one walk at a time; no allocation per varint). */
let at = 0;

/** An unsigned LEB128 of at most 5 bytes at `at`; -1 when it runs longer. */
function varint(buf: Uint8Array): number {
  let b = buf[at++]!;
  if (b < 0x80) return b;
  let v = b & 0x7f;
  let scale = 128;
  for (let i = 1; i < 5; i++) {
    b = buf[at++]!;
    v += (b & 0x7f) * scale;
    if (b < 0x80) return v;
    scale *= 128;
  }
  return -1;
}

function u16(buf: Uint8Array, q: number): number {
  return buf[q]! | (buf[q + 1]! << 8);
}

/**
 * Walks a WorldUpdate payload in buf[start, end): its head into `refs`, then its records,
 * calling `v` and adding to `tally`. Without `resolve` the motion references are left alone
 * (a moveBy reaches no visitor): a bot that does not measure latency needs no positions of
 * players. Returns false when it does not parse: a record running past `end`, a varint over
 * 5 bytes.
 */
/** Waypoints of the path being read, in coord steps (reused). */
const scratch: number[] = [];

export function walkRecords(
  buf: Uint8Array,
  start: number,
  end: number,
  refs: MotionRefs,
  v: RecordVisitor,
  tally: RecordTally,
  resolve = true,
): boolean {
  at = start;
  const tickDelta = varint(buf);
  const timeDelta = varint(buf);
  if (tickDelta < 0 || timeDelta < 0 || at > end) return false;
  refs.advance(tickDelta, timeDelta);
  let id = 0;
  let spawned = -1;
  while (at < end) {
    const recordStart = at;
    const delta = varint(buf);
    if (delta < 0 || at >= end) return false;
    const tag = buf[at++]!;
    id = tag & BASE ? delta : id + delta;
    switch (tag & 0x07) {
      case RecordKind.Move: {
        const q = at;
        at += tag & SPEED ? 7 : 5;
        const age = tag & AGE ? varint(buf) : 0;
        if (age < 0 || at > end) return false;
        const qx = u16(buf, q);
        const qy = u16(buf, q + 2);
        if (resolve)
          refs.setRef(id, qx, qy, buf[q + 4]!, (tag & MOVING) !== 0, tag & SPEED ? u16(buf, q + 5) : -1, age);
        tally.movementRecords++;
        v.move(id, qx, qy, tag & 0xf0, spawned === id);
        break;
      }
      case RecordKind.MoveBy: {
        const dx = varint(buf);
        const dy = varint(buf);
        if (dx < 0 || dy < 0) return false;
        const qa = tag & SAME_ANGLE ? -1 : buf[at++]!;
        const qs = tag & SPEED ? u16(buf, at) : -1;
        if (tag & SPEED) at += 2;
        const age = tag & AGE ? varint(buf) : 0;
        if (age < 0 || at > end) return false;
        tally.movementRecords++;
        if (resolve && refs.moveBy(id, unzigzag(dx), unzigzag(dy), qa, (tag & MOVING) !== 0, qs, age)) {
          v.move(id, refs.qx, refs.qy, tag & MOVING, false);
        }
        break;
      }
      case RecordKind.Path: {
        const q = at;
        const here = (tag & HERE) !== 0;
        if (!here) at += 4;
        const qs = tag & SPEED ? u16(buf, at) : -1;
        if (tag & SPEED) at += 2;
        if (at > end || (!(tag & ONE) && at >= end)) return false;
        const n = tag & ONE ? 1 : buf[at++]!;
        const p = at;
        at += 4 * n;
        const age = tag & AGE ? varint(buf) : 0;
        if (age < 0 || at > end) return false;
        tally.movementRecords++;
        if (!resolve) {
          if (!here) v.path(id, u16(buf, q), u16(buf, q + 2));
          break;
        }
        const pts = scratch;
        pts.length = 0;
        for (let i = 0; i < 2 * n; i++) pts.push(u16(buf, p + 2 * i));
        if (here) {
          if (refs.pathHere(id, qs, pts, age)) v.path(id, refs.qx, refs.qy);
        } else {
          refs.setPath(id, u16(buf, q), u16(buf, q + 2), qs, pts, age);
          v.path(id, u16(buf, q), u16(buf, q + 2));
        }
        break;
      }
      case RecordKind.Spawn: {
        const kind = buf[at]!;
        at += 3;
        if (at >= end) return false;
        at += 1 + buf[at]! + 1;
        if (varint(buf) < 0 || varint(buf) < 0) return false;
        const qs = u16(buf, at);
        at += 3;
        if (at > end) return false;
        if (resolve) refs.spawn(id, qs);
        v.spawn(id, kind === 1, (tag & ALIVE) !== 0);
        break;
      }
      case RecordKind.Despawn:
        at += 1;
        if (at > end) return false;
        if (resolve) refs.forget(id);
        v.despawn(id);
        break;
      case RecordKind.Health:
        if (varint(buf) < 0 || varint(buf) < 0 || at > end) return false;
        break;
      case RecordKind.Death:
        if (varint(buf) < 0 || at > end) return false;
        v.death(id);
        break;
      case RecordKind.Respawn: {
        const q = at;
        at += 4;
        if (varint(buf) < 0 || varint(buf) < 0 || at > end) return false;
        v.respawn(id, buf[q]! | (buf[q + 1]! << 8), buf[q + 2]! | (buf[q + 3]! << 8));
        break;
      }
      default:
        return false;
    }
    tally.records++;
    const kind = tag & 0x07;
    const bytes = at - recordStart;
    if (kind === RecordKind.Move || kind === RecordKind.Path || kind === RecordKind.MoveBy) {
      tally.movementRecordBytes += bytes;
      if (kind === RecordKind.Path) {
        tally.pathRecords++;
        tally.pathRecordBytes += bytes;
      }
      if (spawned === id) {
        tally.spawnMotionRecords++;
        tally.spawnMotionBytes += bytes;
      }
    } else tally.otherRecordBytes += bytes;
    // A spawn's motion record comes right after it, with the same id.
    spawned = kind === RecordKind.Spawn ? id : -1;
  }
  return at === end;
}
