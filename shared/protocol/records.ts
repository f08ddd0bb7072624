/**
 * Entity records: the body of a WorldUpdate frame, everything a client learns about the
 * entities in its view in one tick. The server encodes each interest cell's records once
 * per tick and gives every observer of that cell the same bytes, so the body is a
 * sequence of self-contained blocks; a client reads records until the payload ends.
 *
 *   body    := record*
 *   record  := idDelta varint · tag u8 · fields of the tag's kind
 *              id = idDelta when the tag has BASE (0x08), else previous id + idDelta
 *              (the payload starts from id 0; ids ascend within a block; 0 repeats the
 *              entity: a spawn then its motion)
 *   block   := a run of records whose first has BASE: it depends on nothing before it, so
 *              blocks encoded apart can be concatenated (no counts, no lengths)
 *   tag     := kind (low 3 bits) | BASE 0x08 | flags (high 4 bits)
 *
 *   kind 0 move     x coord · y coord · angle [· speed u16 if SPEED] [· age varint if AGE]
 *                   MOVING 0x10: walking along `angle` at `speed` (the spawn's speed
 *                   unless SPEED 0x40 says otherwise) from (x, y) at the frame's time
 *                   (`age` ms before it with AGE 0x80); without it, standing at (x, y)
 *                   facing `angle`. JUMP 0x20: a discontinuity (teleport, correction):
 *                   snap, do not blend.
 *   kind 1 path     [x coord · y coord unless HERE 0x10] [· speed u16 if SPEED 0x40]
 *                   [· count u8 unless ONE 0x20] · (x coord · y coord) × count
 *                   [· age varint if AGE 0x80]
 *                   walking from (x, y) through the waypoints from the frame's time
 *                   (`age` ms before it with AGE), then standing at the last; ONE: one
 *                   waypoint. HERE: from where the entity's reference puts it at that
 *                   time (see reckonPath), which the path then becomes; HERE with no
 *                   waypoints stops it there, facing along its way.
 *   kind 2 spawn    entity u8 (0 player, 1 mob) · template u16 · name string(16) · level u8 ·
 *                   health varint · maxHealth varint · speed u16 · appearance u8
 *                   ALIVE 0x10. Always followed in its block by the same id's move or path.
 *   kind 3 despawn  reason u8 (0 outOfRange, 1 left, 2 corpse)
 *   kind 4 health   health varint · maxHealth varint
 *   kind 5 death    killer varint (0: none)
 *   kind 6 respawn  x coord · y coord · health varint · maxHealth varint
 *   kind 7 moveBy   dx zigzag · dy zigzag [· angle u8 unless SAME_ANGLE 0x20]
 *                   [· speed u16 if SPEED 0x40] [· age varint if AGE 0x80]; MOVING 0x10
 *                   as for move. A move relative to the entity's reference: where its
 *                   newest move, moveBy or path puts it at the state's time (the frame's
 *                   time, less `age` ms with AGE), in coord steps (see reckonRef).
 *
 * coord: u16, value × 65535 / COORD_MAX (≈ 1/16 unit). angle: u8, 2π/256.
 * speed: u16 in 1/16 units per second. zigzag: a signed integer n as the varint
 * (n << 1) ^ (n >> 31), so small magnitudes of either sign take one byte.
 */
import { DecodeError, DecodeErrorCode, EncodeError } from '../codec/errors.js';
import type { Field } from '../codec/fields.js';
import type { Reader } from '../codec/reader.js';
import type { Writer } from '../codec/writer.js';
import { COORD_MAX, EntityKind } from './common.js';

export const RecordKind = {
  Move: 0,
  Path: 1,
  Spawn: 2,
  Despawn: 3,
  Health: 4,
  Death: 5,
  Respawn: 6,
  MoveBy: 7,
} as const;

/** Tag bit: this record's id delta counts from 0 (the first record of a block). */
export const BASE = 0x08;
const KIND_MASK = 0x07;

export const MOVING = 0x10;
export const JUMP = 0x20;
export const SPEED = 0x40;
export const AGE = 0x80;
export const SAME_ANGLE = 0x20;
export const ALIVE = 0x10;
/** Path tag bits: starts where the reference puts the entity; exactly one waypoint. */
export const HERE = 0x10;
export const ONE = 0x20;

export const DespawnReason = ['outOfRange', 'left', 'corpse'] as const;
export type DespawnReason = (typeof DespawnReason)[number];

/** Waypoints a path record may carry. */
export const MAX_PATH_POINTS = 16;
/** Longest spawn name in UTF-8 bytes (a character name). */
export const NAME_MAX = 16;

export type MoveRecord = {
  kind: 'move';
  id: number;
  x: number;
  y: number;
  /** Heading while moving, facing while standing (radians). */
  angle: number;
  moving: boolean;
  jump: boolean;
  /** Units per second when it differs from the entity's spawn speed. */
  speed: number | undefined;
  /** Ms before the frame's time at which the state held (a walker's state sent again as it was). */
  age?: number;
};
export type PathRecord = {
  kind: 'path';
  id: number;
  x: number;
  y: number;
  /** Units per second when it differs from the entity's spawn speed. */
  speed: number | undefined;
  waypoints: { x: number; y: number }[];
  /** Ms before the frame's time at which the walk started from (x, y). */
  age?: number;
};
/**
 * A path from where the entity's reference puts it (wire HERE): no waypoints stops it
 * there. The client's MotionRefs turns it into a path or a move record; only a client
 * holding the reference can.
 */
export type PathHereRecord = {
  kind: 'pathHere';
  id: number;
  /** Units per second when it differs from the entity's spawn speed. */
  speed: number | undefined;
  waypoints: { x: number; y: number }[];
  age?: number;
};
/**
 * A move relative to the entity's reference (its newest move or moveBy): `dx`, `dy` are
 * coord steps from where the reference puts it at the frame's time. The client's
 * MotionRefs turns it into a move record; only a client holding the reference can.
 */
export type MoveByRecord = {
  kind: 'moveBy';
  id: number;
  dx: number;
  dy: number;
  /** Radians; undefined keeps the reference's angle. */
  angle: number | undefined;
  moving: boolean;
  /** Units per second when it differs from the entity's spawn speed. */
  speed: number | undefined;
  /** Ms before the frame's time at which the state held (when its input took effect on the server). */
  age?: number;
};
export type SpawnRecord = {
  kind: 'spawn';
  id: number;
  entity: EntityKind;
  /** Mob template id; 0 for players. */
  template: number;
  name: string;
  level: number;
  health: number;
  maxHealth: number;
  speed: number;
  appearance: number;
  alive: boolean;
};
export type DespawnRecord = { kind: 'despawn'; id: number; reason: DespawnReason };
export type HealthRecord = { kind: 'health'; id: number; health: number; maxHealth: number };
export type DeathRecord = { kind: 'death'; id: number; killerId: number };
export type RespawnRecord = {
  kind: 'respawn';
  id: number;
  x: number;
  y: number;
  health: number;
  maxHealth: number;
};

export type EntityRecord =
  | MoveRecord
  | PathRecord
  | SpawnRecord
  | DespawnRecord
  | HealthRecord
  | DeathRecord
  | RespawnRecord
  | MoveByRecord
  | PathHereRecord;

// ------------------------------------------------------------------ scalar helpers

const COORD_SCALE = 65535 / COORD_MAX;
const COORD_STEP = COORD_MAX / 65535;
const TAU = Math.PI * 2;
const ANGLE_STEP = TAU / 256;

export function quantizeCoord(v: number): number {
  const q = Math.round(v * COORD_SCALE);
  return q < 0 ? 0 : q > 65535 ? 65535 : q;
}

export function dequantizeCoord(q: number): number {
  return q * COORD_STEP;
}

export function quantizeAngle(a: number): number {
  const turns = a / TAU;
  return Math.round((turns - Math.floor(turns)) * 256) & 0xff;
}

export function quantizeSpeed(s: number): number {
  const q = Math.round(s * 16);
  return q < 0 ? 0 : q > 0xffff ? 0xffff : q;
}

export function dequantizeAngle(q: number): number {
  return q * ANGLE_STEP;
}

export function dequantizeSpeed(q: number): number {
  return q / 16;
}

/**
 * An entity's motion reference, in wire steps: the state of its newest move or moveBy
 * record (position in coord steps, angle in 2π/256 steps, speed in 1/16 units per second,
 * the spawn's when the record had none) and the server time it held at. Server and client
 * keep the same references, so a moveBy can say how far the entity is from where its
 * reference puts it.
 */
export interface MotionRef {
  qx: number;
  qy: number;
  qa: number;
  moving: boolean;
  qs: number;
  t: number;
}

/**
 * Where `ref` puts its entity at server time `t`, in coord steps: standing, its position;
 * walking, q + round(cos/sin(angle) × speed × (t − ref.t) / 1000 × 65535 / COORD_MAX),
 * computed in IEEE doubles, rounded half up, clamped to [0, 65535]. Writes into `out`.
 */
export function reckonRef(ref: MotionRef, t: number, out: { qx: number; qy: number }): void {
  if (!ref.moving || t === ref.t) {
    out.qx = ref.qx;
    out.qy = ref.qy;
    return;
  }
  const d = ((ref.qs / 16) * (t - ref.t) * COORD_SCALE) / 1000;
  const a = ref.qa & 0xff;
  const x = Math.floor(ref.qx + COS[a]! * d + 0.5);
  const y = Math.floor(ref.qy + SIN[a]! * d + 0.5);
  out.qx = x < 0 ? 0 : x > 65535 ? 65535 : x;
  out.qy = y < 0 ? 0 : y > 65535 ? 65535 : y;
}

/**
 * A path reference in wire steps: from (qx, qy) at server time t through `pts` (x, y pairs
 * of coord steps) at qs (1/16 units per second); `qa` is the facing before the first leg.
 */
export interface PathRef {
  qx: number;
  qy: number;
  qa: number;
  qs: number;
  t: number;
  pts: readonly number[];
}

/**
 * Where a path puts its entity at server time `t`, in coord steps, and which way it faces
 * (the angle step of the leg it is on, or of the last leg once arrived): the distance
 * walked, (qs / 16) × (t − ref.t) / 1000 × 65535 / COORD_MAX steps, is laid along the legs
 * in IEEE doubles and the point rounded half up. Writes into `out`; returns the index of
 * the first waypoint not yet reached (pts.length / 2 once arrived). Server and clients
 * compute the same steps from the same numbers.
 */
export function reckonPath(ref: PathRef, t: number, out: { qx: number; qy: number; qa: number }): number {
  const pts = ref.pts;
  let left = t > ref.t ? ((ref.qs / 16) * (t - ref.t) * COORD_SCALE) / 1000 : 0;
  let fx = ref.qx;
  let fy = ref.qy;
  let qa = ref.qa;
  for (let i = 0; i < pts.length; i += 2) {
    const tx = pts[i]!;
    const ty = pts[i + 1]!;
    const dx = tx - fx;
    const dy = ty - fy;
    const len = Math.sqrt(dx * dx + dy * dy);
    if (len > 0) qa = quantizeAngle(Math.atan2(dy, dx));
    if (left < len) {
      const f = left / len;
      out.qx = Math.floor(fx + dx * f + 0.5);
      out.qy = Math.floor(fy + dy * f + 0.5);
      out.qa = qa;
      return i / 2;
    }
    left -= len;
    fx = tx;
    fy = ty;
  }
  out.qx = fx;
  out.qy = fy;
  out.qa = qa;
  return pts.length / 2;
}

/** cos and sin of each angle step, as Math.cos and Math.sin give them (looked up, not recomputed). */
const COS = Float64Array.from({ length: 256 }, (_, k) => Math.cos(k * ANGLE_STEP));
const SIN = Float64Array.from({ length: 256 }, (_, k) => Math.sin(k * ANGLE_STEP));

export function zigzag(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

export function unzigzag(z: number): number {
  // z & 1 is z's low bit for any integer below 2^53 (ToInt32 keeps the low 32 bits).
  return (z & 1) === 0 ? z / 2 : -(z + 1) / 2;
}

function finite(v: number, what: string): number {
  if (!Number.isFinite(v)) throw new EncodeError(`${what} must be finite: ${v}`);
  return v;
}

function int(v: number, min: number, max: number, what: string): number {
  if (!Number.isInteger(v) || v < min || v > max) throw new EncodeError(`${what} out of range: ${v}`);
  return v;
}

/** Points as a path's wire steps: x, y pairs of coord steps, into `out` (emptied first). */
export function quantizePoints(points: readonly { x: number; y: number }[], out: number[] = []): number[] {
  out.length = 0;
  for (const p of points) out.push(quantizeCoord(finite(p.x, 'coord')), quantizeCoord(finite(p.y, 'coord')));
  return out;
}

function coord(w: Writer, v: number): void {
  w.u16(quantizeCoord(finite(v, 'coord')));
}

// ------------------------------------------------------------------ writing

/**
 * Writes one block's records, in ascending id order, into `w`: the caller passes each
 * record's id delta (the first's from 0) and marks the first with `markBase`.
 */
export const writeRecordBody = {
  move(
    w: Writer,
    idDelta: number,
    x: number,
    y: number,
    angle: number,
    moving: boolean,
    jump: boolean,
    speed?: number,
    age = 0,
  ) {
    writeRecordBody.moveSteps(
      w,
      idDelta,
      quantizeCoord(finite(x, 'coord')),
      quantizeCoord(finite(y, 'coord')),
      quantizeAngle(finite(angle, 'angle')),
      moving,
      jump,
      speed === undefined ? -1 : quantizeSpeed(finite(speed, 'speed')),
      age,
    );
  },
  /** A move in wire steps (coord, angle and speed steps); `qs` -1 for the spawn's speed, `age` 0 for none. */
  moveSteps(
    w: Writer,
    idDelta: number,
    qx: number,
    qy: number,
    qa: number,
    moving: boolean,
    jump: boolean,
    qs: number,
    age: number,
  ) {
    const aged = age > 0;
    w.varint(idDelta);
    w.u8(
      RecordKind.Move | (moving ? MOVING : 0) | (jump ? JUMP : 0) | (qs >= 0 ? SPEED : 0) | (aged ? AGE : 0),
    );
    w.u16(qx);
    w.u16(qy);
    w.u8(qa);
    if (qs >= 0) w.u16(qs);
    if (aged) w.varint(int(age, 0, 0xffffffff, 'age'));
  },
  /**
   * A move relative to the reference: coord steps (dx, dy) from where the reference puts the
   * entity `age` ms before the frame's time (the state's own time); `qa` -1 keeps its angle,
   * `qs` -1 the spawn's speed, `age` 0 for none.
   */
  moveBy(
    w: Writer,
    idDelta: number,
    dx: number,
    dy: number,
    qa: number,
    moving: boolean,
    qs: number,
    age = 0,
  ) {
    const aged = age > 0;
    w.varint(idDelta);
    w.u8(
      RecordKind.MoveBy |
        (moving ? MOVING : 0) |
        (qa < 0 ? SAME_ANGLE : 0) |
        (qs >= 0 ? SPEED : 0) |
        (aged ? AGE : 0),
    );
    w.varint(zigzag(int(dx, -65535, 65535, 'dx')));
    w.varint(zigzag(int(dy, -65535, 65535, 'dy')));
    if (qa >= 0) w.u8(qa);
    if (qs >= 0) w.u16(qs);
    if (aged) w.varint(int(age, 0, 0xffffffff, 'age'));
  },
  path(
    w: Writer,
    idDelta: number,
    x: number,
    y: number,
    speed: number | undefined,
    waypoints: readonly { x: number; y: number }[],
    age = 0,
  ) {
    const pts = quantizePoints(waypoints);
    writeRecordBody.pathSteps(
      w,
      idDelta,
      quantizeCoord(finite(x, 'coord')),
      quantizeCoord(finite(y, 'coord')),
      speed === undefined ? -1 : quantizeSpeed(finite(speed, 'speed')),
      pts,
      age,
    );
  },
  /**
   * A path in wire steps: from (qx, qy), or from where the reference puts the entity when
   * `qx` is -1 (HERE), through `pts` (x, y pairs of coord steps); `qs` -1 for the spawn's
   * speed, `age` 0 for none.
   */
  pathSteps(w: Writer, idDelta: number, qx: number, qy: number, qs: number, pts: readonly number[], age = 0) {
    const n = pts.length >> 1;
    if (n > MAX_PATH_POINTS) throw new EncodeError(`path of ${n} waypoints exceeds ${MAX_PATH_POINTS}`);
    const here = qx < 0;
    const aged = age > 0;
    w.varint(idDelta);
    w.u8(
      RecordKind.Path | (here ? HERE : 0) | (n === 1 ? ONE : 0) | (qs >= 0 ? SPEED : 0) | (aged ? AGE : 0),
    );
    if (!here) {
      w.u16(qx);
      w.u16(qy);
    }
    if (qs >= 0) w.u16(qs);
    if (n !== 1) w.u8(n);
    for (let i = 0; i < n * 2; i++) w.u16(pts[i]!);
    if (aged) w.varint(int(age, 0, 0xffffffff, 'age'));
  },
  spawn(w: Writer, idDelta: number, s: Omit<SpawnRecord, 'kind' | 'id'>) {
    w.varint(idDelta);
    const kind = EntityKind.indexOf(s.entity);
    if (kind < 0)
      throw new EncodeError(`entity kind ${String(s.entity)} is not one of ${EntityKind.join(', ')}`);
    w.u8(RecordKind.Spawn | (s.alive ? ALIVE : 0));
    w.u8(kind);
    w.u16(int(s.template, 0, 0xffff, 'template'));
    w.string(s.name, NAME_MAX, 1);
    w.u8(int(s.level, 0, 0xff, 'level'));
    w.varint(s.health);
    w.varint(s.maxHealth);
    w.u16(quantizeSpeed(finite(s.speed, 'speed')));
    w.u8(int(s.appearance, 0, 0xff, 'appearance'));
  },
  despawn(w: Writer, idDelta: number, reason: DespawnReason) {
    const i = DespawnReason.indexOf(reason);
    if (i < 0)
      throw new EncodeError(`despawn reason ${String(reason)} is not one of ${DespawnReason.join(', ')}`);
    w.varint(idDelta);
    w.u8(RecordKind.Despawn);
    w.u8(i);
  },
  health(w: Writer, idDelta: number, health: number, maxHealth: number) {
    w.varint(idDelta);
    w.u8(RecordKind.Health);
    w.varint(health);
    w.varint(maxHealth);
  },
  death(w: Writer, idDelta: number, killerId: number) {
    w.varint(idDelta);
    w.u8(RecordKind.Death);
    w.varint(killerId);
  },
  respawn(w: Writer, idDelta: number, x: number, y: number, health: number, maxHealth: number) {
    w.varint(idDelta);
    w.u8(RecordKind.Respawn);
    coord(w, x);
    coord(w, y);
    w.varint(health);
    w.varint(maxHealth);
  },
};

/**
 * Sets BASE on the record written at `start` in `buf` (its tag follows the id delta varint):
 * the first record of a block, whose id delta counts from 0.
 */
export function markBase(buf: Uint8Array, start: number): void {
  let i = start;
  while (buf[i]! & 0x80) i++;
  buf[i + 1]! |= BASE;
}

/** Writes one record (object form: tests, tools and the spec's examples). */
export function writeRecord(w: Writer, idDelta: number, r: EntityRecord): void {
  const b = writeRecordBody;
  switch (r.kind) {
    case 'move':
      return b.move(w, idDelta, r.x, r.y, r.angle, r.moving, r.jump, r.speed, r.age ?? 0);
    case 'moveBy':
      return b.moveBy(
        w,
        idDelta,
        r.dx,
        r.dy,
        r.angle === undefined ? -1 : quantizeAngle(finite(r.angle, 'angle')),
        r.moving,
        r.speed === undefined ? -1 : quantizeSpeed(finite(r.speed, 'speed')),
        r.age ?? 0,
      );
    case 'path':
      return b.path(w, idDelta, r.x, r.y, r.speed, r.waypoints, r.age ?? 0);
    case 'pathHere': {
      const pts = quantizePoints(r.waypoints);
      const qs = r.speed === undefined ? -1 : quantizeSpeed(finite(r.speed, 'speed'));
      return b.pathSteps(w, idDelta, -1, -1, qs, pts, r.age ?? 0);
    }
    case 'spawn':
      return b.spawn(w, idDelta, r);
    case 'despawn':
      return b.despawn(w, idDelta, r.reason);
    case 'health':
      return b.health(w, idDelta, r.health, r.maxHealth);
    case 'death':
      return b.death(w, idDelta, r.killerId);
    case 'respawn':
      return b.respawn(w, idDelta, r.x, r.y, r.health, r.maxHealth);
  }
}

/** Writes records as blocks: a new block starts wherever the id goes down. */
export function writeRecords(w: Writer, records: readonly EntityRecord[]): void {
  let i = 0;
  while (i < records.length) {
    let j = i + 1;
    while (j < records.length && records[j]!.id >= records[j - 1]!.id) j++;
    let prev = 0;
    for (let k = i; k < j; k++) {
      const r = records[k]!;
      int(r.id, 0, 0xffffffff, 'entity id');
      const start = w.pos;
      writeRecord(w, r.id - prev, r);
      if (k === i) markBase(w.buf, start);
      prev = r.id;
    }
    i = j;
  }
}

// ------------------------------------------------------------------ reading

function bad(code: DecodeErrorCode, message: string): never {
  throw new DecodeError(code, message);
}

/**
 * One call per record from `visitRecords`, in wire steps (coord, angle and speed steps, as
 * the *Steps writers take them), so that a reader decodes only what it uses and allocates
 * nothing. Each call comes once the whole record is read (the reader stands at its end).
 * `qs` is -1 when the record carries no speed (the spawn's holds), `age` -1 when it carries
 * none.
 */
export interface RecordVisitor {
  /** kind 0; `flags` (the tag's high bits) holds MOVING and JUMP. */
  move(id: number, flags: number, qx: number, qy: number, qa: number, qs: number, age: number): void;
  /** kind 7: coord steps from the reference; `qa` -1 keeps its angle; `flags` holds MOVING. */
  moveBy(id: number, flags: number, dx: number, dy: number, qa: number, qs: number, age: number): void;
  /**
   * kind 1: from (qx, qy), or from where the reference puts the entity when `qx` is -1
   * (HERE), through `n` waypoints. With RecordDetail.Points `pts` holds them as x, y pairs of
   * coord steps (a scratch array refilled for the next path: copy what is kept); without, it
   * is empty.
   */
  path(id: number, qx: number, qy: number, qs: number, n: number, pts: readonly number[], age: number): void;
  /** kind 2; `entity` indexes EntityKind; `name` is '' without RecordDetail.Names. */
  spawn(
    id: number,
    alive: boolean,
    entity: number,
    template: number,
    name: string,
    level: number,
    health: number,
    maxHealth: number,
    qs: number,
    appearance: number,
  ): void;
  /** kind 3; `reason` indexes DespawnReason. */
  despawn(id: number, reason: number): void;
  health(id: number, health: number, maxHealth: number): void;
  death(id: number, killerId: number): void;
  respawn(id: number, qx: number, qy: number, health: number, maxHealth: number): void;
}

/** What `visitRecords` reads beyond the numbers: spawn names and path waypoints (else stepped over). */
export const RecordDetail = { Numbers: 0, Names: 1, Points: 2, All: 3 } as const;

/**
 * The waypoints of the path being visited (see RecordVisitor.path): one array for each count
 * of waypoints, filled in place, so that none is ever resized.
 */
const pointsOf: number[][] = Array.from({ length: MAX_PATH_POINTS + 1 }, (_, n) =>
  new Array<number>(2 * n).fill(0),
);
const NO_POINTS: readonly number[] = [];

/**
 * Reads records to the end of the reader, handing each to `v`; every check of the layout is
 * made whatever `detail` asks for, and a record that breaks one throws a DecodeError.
 */
export function visitRecords(r: Reader, v: RecordVisitor, detail: number = RecordDetail.All): void {
  let id = 0;
  while (r.pos < r.end) {
    const delta = r.varint();
    const tag = r.u8();
    id = tag & BASE ? delta : id + delta;
    if (id > 0xffffffff) bad(DecodeErrorCode.BadVarint, `entity id ${id} beyond u32`);
    const flags = tag & 0xf0;
    switch (tag & KIND_MASK) {
      case RecordKind.Move:
        visitMove(r, v, id, flags);
        break;
      case RecordKind.MoveBy:
        visitMoveBy(r, v, id, flags);
        break;
      case RecordKind.Path:
        visitPath(r, v, id, flags, detail);
        break;
      case RecordKind.Spawn:
        visitSpawn(r, v, id, flags, detail);
        break;
      default:
        visitState(r, v, id, tag);
    }
  }
}

function visitMove(r: Reader, v: RecordVisitor, id: number, flags: number): void {
  const qx = r.u16();
  const qy = r.u16();
  const qa = r.u8();
  const qs = flags & SPEED ? r.u16() : -1;
  v.move(id, flags, qx, qy, qa, qs, flags & AGE ? r.varint() : -1);
}

function visitMoveBy(r: Reader, v: RecordVisitor, id: number, flags: number): void {
  const dx = unzigzag(r.varint());
  const dy = unzigzag(r.varint());
  const qa = flags & SAME_ANGLE ? -1 : r.u8();
  const qs = flags & SPEED ? r.u16() : -1;
  v.moveBy(id, flags, dx, dy, qa, qs, flags & AGE ? r.varint() : -1);
}

function visitPath(r: Reader, v: RecordVisitor, id: number, flags: number, detail: number): void {
  const here = (flags & HERE) !== 0;
  const qx = here ? -1 : r.u16();
  const qy = here ? -1 : r.u16();
  const qs = flags & SPEED ? r.u16() : -1;
  const n = flags & ONE ? 1 : r.u8();
  if (n > MAX_PATH_POINTS)
    bad(DecodeErrorCode.ListTooLong, `path of ${n} waypoints exceeds ${MAX_PATH_POINTS}`);
  let pts: readonly number[] = NO_POINTS;
  if (detail & RecordDetail.Points) {
    const points = pointsOf[n]!;
    for (let i = 0; i < points.length; i++) points[i] = r.u16();
    pts = points;
  } else r.skip(n * 4);
  v.path(id, qx, qy, qs, n, pts, flags & AGE ? r.varint() : -1);
}

function visitSpawn(r: Reader, v: RecordVisitor, id: number, flags: number, detail: number): void {
  if (flags & ~ALIVE) bad(DecodeErrorCode.BadEnum, `spawn record flags 0x${flags.toString(16)}`);
  const entity = r.u8();
  if (entity > 1) bad(DecodeErrorCode.BadEnum, `entity kind ${entity} is not below 2`);
  const template = r.u16();
  let name = '';
  if (detail & RecordDetail.Names) name = r.string(NAME_MAX, 1);
  else r.skipString(NAME_MAX, 1);
  const level = r.u8();
  const health = r.varint();
  const maxHealth = r.varint();
  const qs = r.u16();
  v.spawn(id, (flags & ALIVE) !== 0, entity, template, name, level, health, maxHealth, qs, r.u8());
}

/** The kinds with no flags: despawn, health, death, respawn. */
function visitState(r: Reader, v: RecordVisitor, id: number, tag: number): void {
  const kind = tag & KIND_MASK;
  const flags = tag & 0xf0;
  if (flags) bad(DecodeErrorCode.BadEnum, `${KIND_NAMES[kind]} record flags 0x${flags.toString(16)}`);
  switch (kind) {
    case RecordKind.Despawn: {
      const reason = r.u8();
      if (reason >= DespawnReason.length)
        bad(DecodeErrorCode.BadEnum, `despawn reason ${reason} is not below 3`);
      return v.despawn(id, reason);
    }
    case RecordKind.Health:
      return v.health(id, r.varint(), r.varint());
    case RecordKind.Death:
      return v.death(id, r.varint());
    case RecordKind.Respawn:
      return v.respawn(id, r.u16(), r.u16(), r.varint(), r.varint());
    default:
      return bad(DecodeErrorCode.BadEnum, `record kind ${kind} is not below 8`);
  }
}

const KIND_NAMES = ['move', 'path', 'spawn', 'despawn', 'health', 'death', 'respawn', 'moveBy'] as const;

/** The object form of each record (`readRecords`): what the client and the tools decode into. */
class RecordList implements RecordVisitor {
  out: EntityRecord[] = [];

  move(id: number, flags: number, qx: number, qy: number, qa: number, qs: number, age: number): void {
    const move: MoveRecord = {
      kind: 'move',
      id,
      x: dequantizeCoord(qx),
      y: dequantizeCoord(qy),
      angle: dequantizeAngle(qa),
      moving: (flags & MOVING) !== 0,
      jump: (flags & JUMP) !== 0,
      speed: qs < 0 ? undefined : dequantizeSpeed(qs),
    };
    if (age >= 0) move.age = age;
    this.out.push(move);
  }

  moveBy(id: number, flags: number, dx: number, dy: number, qa: number, qs: number, age: number): void {
    const moveBy: MoveByRecord = {
      kind: 'moveBy',
      id,
      dx,
      dy,
      angle: qa < 0 ? undefined : dequantizeAngle(qa),
      moving: (flags & MOVING) !== 0,
      speed: qs < 0 ? undefined : dequantizeSpeed(qs),
    };
    if (age >= 0) moveBy.age = age;
    this.out.push(moveBy);
  }

  path(id: number, qx: number, qy: number, qs: number, n: number, pts: readonly number[], age: number): void {
    const speed = qs < 0 ? undefined : dequantizeSpeed(qs);
    const waypoints: { x: number; y: number }[] = [];
    for (let i = 0; i < n; i++)
      waypoints.push({ x: dequantizeCoord(pts[2 * i]!), y: dequantizeCoord(pts[2 * i + 1]!) });
    const path: PathRecord | PathHereRecord =
      qx < 0
        ? { kind: 'pathHere', id, speed, waypoints }
        : { kind: 'path', id, x: dequantizeCoord(qx), y: dequantizeCoord(qy), speed, waypoints };
    if (age >= 0) path.age = age;
    this.out.push(path);
  }

  spawn(
    id: number,
    alive: boolean,
    entity: number,
    template: number,
    name: string,
    level: number,
    health: number,
    maxHealth: number,
    qs: number,
    appearance: number,
  ): void {
    const speed = dequantizeSpeed(qs);
    this.out.push({
      kind: 'spawn',
      id,
      entity: EntityKind[entity]!,
      template,
      name,
      level,
      health,
      maxHealth,
      speed,
      appearance,
      alive,
    });
  }

  despawn(id: number, reason: number): void {
    this.out.push({ kind: 'despawn', id, reason: DespawnReason[reason]! });
  }

  health(id: number, health: number, maxHealth: number): void {
    this.out.push({ kind: 'health', id, health, maxHealth });
  }

  death(id: number, killerId: number): void {
    this.out.push({ kind: 'death', id, killerId });
  }

  respawn(id: number, qx: number, qy: number, health: number, maxHealth: number): void {
    this.out.push({ kind: 'respawn', id, x: dequantizeCoord(qx), y: dequantizeCoord(qy), health, maxHealth });
  }
}

const list = new RecordList();

/** Reads records to the end of the payload, each as its object. */
export function readRecords(r: Reader): EntityRecord[] {
  const out: EntityRecord[] = [];
  list.out = out;
  visitRecords(r, list, RecordDetail.All);
  return out;
}

/**
 * The records field: records to the end of the payload. A frame holds at most
 * MAX_FRAME_SIZE bytes, so the server starts another WorldUpdate frame when one is full.
 */
export function entityRecords(maxSize: number): Field<EntityRecord[]> {
  return {
    spec: { type: 'records' },
    maxSize,
    write: writeRecords,
    read: readRecords,
  };
}
