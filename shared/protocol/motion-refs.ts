/**
 * The receiving half of a WorldUpdate's stateful parts (docs/PROTOCOL.md, Entity records):
 *
 *   - the head's tick and time are deltas from the previous WorldUpdate on the connection,
 *     the first from EnterWorld's tick and serverTime;
 *   - a moveBy record is a move relative to its entity's reference, the state of its newest
 *     move or moveBy record, which both ends keep alike.
 *
 * `resolve` rewrites a decoded WorldUpdate in place into its absolute form (tick and time,
 * moveBy records turned into move records, aged moves carried to the frame's time), so
 * everything after it reads plain states. A moveBy for an entity without a reference (the
 * client's own entity, which it predicts; or one whose spawn follows in the same frame) is
 * dropped. The step methods (`advance`, `setRef`, `moveBy`...) are the same work without
 * objects, for readers that walk the bytes in place.
 */
import type { PayloadOf } from './define.js';
import type { WorldUpdate } from './entity.js';
import {
  dequantizeAngle,
  dequantizeCoord,
  dequantizeSpeed,
  quantizeAngle,
  quantizeCoord,
  quantizeSpeed,
  reckonRef,
  type EntityRecord,
  type MotionRef,
  type MoveRecord,
} from './records.js';

export type WorldUpdatePayload = PayloadOf<typeof WorldUpdate>;

export class MotionRefs {
  /** The newest WorldUpdate's tick and server time (absolute). */
  tick = 0;
  time = 0;
  /** Where the last `moveBy` (or `setRef`) put its entity, in coord steps. */
  qx = 0;
  qy = 0;
  private readonly refs = new Map<number, MotionRef>();
  /** Each spawned entity's speed in 1/16 units per second: a record without SPEED walks at it. */
  private readonly spawnSpeeds = new Map<number, number>();
  private readonly at = { qx: 0, qy: 0 };

  /** Entered the world: the head's deltas count from EnterWorld's tick and serverTime. */
  enter(tick: number, time: number): void {
    this.tick = tick;
    this.time = time;
    this.refs.clear();
    this.spawnSpeeds.clear();
  }

  advance(tickDelta: number, timeDelta: number): void {
    this.tick += tickDelta;
    this.time += timeDelta;
  }

  /** A spawn record: the entity's speed; its reference comes with the motion record after it. */
  spawn(id: number, qs: number): void {
    this.spawnSpeeds.set(id, qs);
    this.refs.delete(id);
  }

  forget(id: number): void {
    this.refs.delete(id);
    this.spawnSpeeds.delete(id);
  }

  /** A path: the entity has no move reference until its next move. */
  path(id: number): void {
    this.refs.delete(id);
  }

  /** An absolute move in wire steps (`qs` -1: the spawn's speed), `age` ms before the frame's time. */
  setRef(id: number, qx: number, qy: number, qa: number, moving: boolean, qs: number, age: number): void {
    const speed = qs >= 0 ? qs : (this.spawnSpeeds.get(id) ?? 0);
    const ref = this.refs.get(id);
    const t = this.time - age;
    if (ref) {
      ref.qx = qx;
      ref.qy = qy;
      ref.qa = qa;
      ref.moving = moving;
      ref.qs = speed;
      ref.t = t;
    } else this.refs.set(id, { qx, qy, qa, moving, qs: speed, t });
    this.qx = qx;
    this.qy = qy;
  }

  /**
   * A moveBy: false when the entity has no reference. Otherwise its new state becomes the
   * reference, its position is left in `qx`, `qy`, and its angle step is returned via `ref`.
   */
  moveBy(id: number, dx: number, dy: number, qa: number, moving: boolean, qs: number): MotionRef | undefined {
    const ref = this.refs.get(id);
    if (!ref) return undefined;
    reckonRef(ref, this.time, this.at);
    const qx = clampStep(this.at.qx + dx);
    const qy = clampStep(this.at.qy + dy);
    ref.qx = qx;
    ref.qy = qy;
    if (qa >= 0) ref.qa = qa;
    ref.moving = moving;
    ref.qs = qs >= 0 ? qs : (this.spawnSpeeds.get(id) ?? 0);
    ref.t = this.time;
    this.qx = qx;
    this.qy = qy;
    return ref;
  }

  /** Rewrites a decoded WorldUpdate into absolute form (see the module comment). */
  resolve(update: WorldUpdatePayload): void {
    this.advance(update.tick, update.time);
    update.tick = this.tick;
    update.time = this.time;
    const records = update.records;
    let kept = 0;
    for (let i = 0; i < records.length; i++) {
      const r = this.resolveRecord(records[i]!);
      if (r) records[kept++] = r;
    }
    records.length = kept;
  }

  private resolveRecord(r: EntityRecord): EntityRecord | undefined {
    switch (r.kind) {
      case 'spawn':
        this.spawn(r.id, quantizeSpeed(r.speed));
        return r;
      case 'despawn':
        this.forget(r.id);
        return r;
      case 'path':
        this.path(r.id);
        return r;
      case 'move': {
        const qs = r.speed === undefined ? -1 : quantizeSpeed(r.speed);
        const age = r.age ?? 0;
        this.setRef(r.id, quantizeCoord(r.x), quantizeCoord(r.y), quantizeAngle(r.angle), r.moving, qs, age);
        if (age === 0) return r;
        // Carried to the frame's time, so readers need not know about ages.
        reckonRef(this.refs.get(r.id)!, this.time, this.at);
        const carried: MoveRecord = { ...r, x: dequantizeCoord(this.at.qx), y: dequantizeCoord(this.at.qy) };
        delete carried.age;
        return carried;
      }
      case 'moveBy': {
        const ref = this.moveBy(
          r.id,
          r.dx,
          r.dy,
          r.angle === undefined ? -1 : quantizeAngle(r.angle),
          r.moving,
          r.speed === undefined ? -1 : quantizeSpeed(r.speed),
        );
        if (!ref) return undefined;
        return {
          kind: 'move',
          id: r.id,
          x: dequantizeCoord(ref.qx),
          y: dequantizeCoord(ref.qy),
          angle: dequantizeAngle(ref.qa),
          moving: ref.moving,
          jump: false,
          speed: r.speed === undefined ? undefined : dequantizeSpeed(ref.qs),
        };
      }
      default:
        return r;
    }
  }
}

function clampStep(q: number): number {
  return q < 0 ? 0 : q > 65535 ? 65535 : q;
}
