/**
 * The receiving half of a WorldUpdate's stateful parts (docs/PROTOCOL.md, Entity records):
 *
 *   - the head's tick and time are deltas from the previous WorldUpdate on the connection,
 *     the first from EnterWorld's tick and serverTime;
 *   - a moveBy record is a move relative to its entity's reference, and a HERE path a path
 *     from where that reference puts it: the reference is the entity's newest move, moveBy
 *     or path record, which both ends keep alike.
 *
 * `resolve` rewrites a decoded WorldUpdate in place into its absolute form (tick and time,
 * moveBy records turned into move records, each the state as it held `age` ms before the
 * frame's time; HERE paths into paths from a point, or into moves where they stop; aged
 * paths carried to the frame's time), so everything after it reads plain states, each
 * dated by its own time. A moveBy or HERE path for an entity without a reference (the
 * client's own entity, which it predicts; or one whose spawn follows in the same frame) is
 * dropped. The step methods (`advance`, `setRef`, `moveBy`, `setPath`, `pathHere`...) are
 * the same work without objects, for readers that walk the bytes in place.
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
  quantizePoints,
  reckonPath,
  reckonRef,
  type EntityRecord,
  type MotionRef,
  type MoveRecord,
  type PathRecord,
  type PathRef,
} from './records.js';

export type WorldUpdatePayload = PayloadOf<typeof WorldUpdate>;

/** Ids below this are kept in an array (players count up from 1; mobs start at 2^20). */
const SMALL_IDS = 1 << 16;

/** What the client keeps per entity: its spawn's speed and, while it has one, its reference. */
interface Entry extends MotionRef {
  /** The spawn's speed in 1/16 units per second. */
  spawnQs: number;
  /** Whether the entry holds a reference (from the entity's first move or path on). */
  held: boolean;
  /**
   * A path reference's waypoints (x, y pairs of coord steps), walked from (qx, qy) at t at
   * qs; null for a move reference. The array is kept and refilled, not replaced.
   */
  pts: number[] | null;
}

export class MotionRefs {
  /** The newest WorldUpdate's tick and server time (absolute). */
  tick = 0;
  time = 0;
  /** Where the last `moveBy` (or `setRef`) put its entity, in coord steps. */
  qx = 0;
  qy = 0;
  /**
   * One entry per entity in view, kept from its spawn to its despawn (a path only marks its
   * reference void), so the stream of moves and paths never adds or deletes entries. Ids
   * below SMALL_IDS (players) index an array, the rest (mobs) a map: this runs for every
   * record a client gets, thousands of times a second in a bot swarm.
   */
  private readonly small: (Entry | undefined)[] = [];
  private readonly large = new Map<number, Entry>();
  private readonly at = { qx: 0, qy: 0, qa: 0 };
  private readonly spare: number[] = [];

  /** Entered the world: the head's deltas count from EnterWorld's tick and serverTime. */
  enter(tick: number, time: number): void {
    this.tick = tick;
    this.time = time;
    this.small.length = 0;
    this.large.clear();
  }

  private get(id: number): Entry | undefined {
    return id < SMALL_IDS ? this.small[id] : this.large.get(id);
  }

  private put(id: number, e: Entry): void {
    if (id < SMALL_IDS) this.small[id] = e;
    else this.large.set(id, e);
  }

  advance(tickDelta: number, timeDelta: number): void {
    this.tick += tickDelta;
    this.time += timeDelta;
  }

  /** A spawn record: the entity's speed; its reference comes with the motion record after it. */
  spawn(id: number, qs: number): void {
    const e = this.get(id);
    if (e) {
      e.spawnQs = qs;
      e.held = false;
      e.pts = null;
    } else {
      this.put(id, { qx: 0, qy: 0, qa: 0, moving: false, qs: 0, t: 0, spawnQs: qs, held: false, pts: null });
    }
  }

  forget(id: number): void {
    if (id < SMALL_IDS) this.small[id] = undefined;
    else this.large.delete(id);
  }

  /** Where `e`'s reference puts it at `t` (coord steps and facing angle step), into `out`. */
  private reckon(e: Entry, t: number, out: { qx: number; qy: number; qa: number }): number {
    if (e.pts) return reckonPath(e as PathRef, t, out);
    reckonRef(e, t, out);
    out.qa = e.qa;
    return 0;
  }

  /**
   * A path from (qx, qy) through `pts` (x, y pairs of coord steps) that started `age` ms
   * before the frame's time; `qs` -1 for the spawn's speed. No waypoints: it stands there.
   */
  setPath(id: number, qx: number, qy: number, qs: number, pts: readonly number[], age: number): void {
    let e = this.get(id);
    if (!e) {
      e = { qx, qy, qa: 0, moving: false, qs: 0, t: 0, spawnQs: 0, held: false, pts: null };
      this.put(id, e);
    }
    this.startPath(e, qx, qy, e.qa, qs, pts, this.time - age);
  }

  /**
   * A HERE path: from where the entity's reference puts it `age` ms before the frame's time
   * (left in `qx`, `qy`). False when the entity has no reference.
   */
  pathHere(id: number, qs: number, pts: readonly number[], age = 0): boolean {
    const e = this.get(id);
    if (!e || !e.held) return false;
    const t = this.time - age;
    const at = this.at;
    this.reckon(e, t, at);
    this.startPath(e, at.qx, at.qy, at.qa, qs, pts, t);
    return true;
  }

  private startPath(
    e: Entry,
    qx: number,
    qy: number,
    qa: number,
    qs: number,
    pts: readonly number[],
    t: number,
  ): void {
    e.qx = qx;
    e.qy = qy;
    e.qa = qa;
    e.qs = qs >= 0 ? qs : e.spawnQs;
    e.t = t;
    e.held = true;
    if (pts.length === 0) {
      // Stopped: a standing move reference, facing along the way it came.
      e.moving = false;
      e.pts = null;
    } else {
      e.moving = true;
      const kept = e.pts ?? [];
      kept.length = 0;
      for (let i = 0; i < pts.length; i++) kept.push(pts[i]!);
      e.pts = kept;
    }
    this.qx = qx;
    this.qy = qy;
  }

  /** An absolute move in wire steps (`qs` -1: the spawn's speed), `age` ms before the frame's time. */
  setRef(id: number, qx: number, qy: number, qa: number, moving: boolean, qs: number, age: number): void {
    let e = this.get(id);
    if (!e) {
      // Never spawned here (the client's own entity): its speed is whatever the record says.
      e = { qx, qy, qa, moving, qs: 0, t: 0, spawnQs: 0, held: false, pts: null };
      this.put(id, e);
    }
    e.pts = null;
    e.qx = qx;
    e.qy = qy;
    e.qa = qa;
    e.moving = moving;
    e.qs = qs >= 0 ? qs : e.spawnQs;
    e.t = this.time - age;
    e.held = true;
    this.qx = qx;
    this.qy = qy;
  }

  /**
   * A moveBy (its state held `age` ms before the frame's time): undefined when the entity
   * has no reference. Otherwise its new state becomes the reference (returned), and its
   * position at the state's time is also left in `qx`, `qy`.
   */
  moveBy(
    id: number,
    dx: number,
    dy: number,
    qa: number,
    moving: boolean,
    qs: number,
    age = 0,
  ): MotionRef | undefined {
    const e = this.get(id);
    if (!e || !e.held) return undefined;
    const at = this.at;
    const t = this.time - age;
    this.reckon(e, t, at);
    if (e.pts) {
      // From a path reference: a move reference from here on, facing as it walked.
      e.qa = at.qa;
      e.pts = null;
    }
    const qx = clampStep(at.qx + dx);
    const qy = clampStep(at.qy + dy);
    e.qx = qx;
    e.qy = qy;
    if (qa >= 0) e.qa = qa;
    e.moving = moving;
    e.qs = qs >= 0 ? qs : e.spawnQs;
    e.t = t;
    this.qx = qx;
    this.qy = qy;
    return e;
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
      case 'path': {
        const pts = quantizePoints(r.waypoints, this.spare);
        const qs = r.speed === undefined ? -1 : quantizeSpeed(r.speed);
        this.setPath(r.id, quantizeCoord(r.x), quantizeCoord(r.y), qs, pts, r.age ?? 0);
        return r.age ? this.carried(r.id, r) : r;
      }
      case 'pathHere': {
        const pts = quantizePoints(r.waypoints, this.spare);
        const qs = r.speed === undefined ? -1 : quantizeSpeed(r.speed);
        if (!this.pathHere(r.id, qs, pts, r.age ?? 0)) return undefined;
        const path: PathRecord = {
          kind: 'path',
          id: r.id,
          x: dequantizeCoord(this.qx),
          y: dequantizeCoord(this.qy),
          speed: r.speed,
          waypoints: r.waypoints,
        };
        return this.carried(r.id, path);
      }
      case 'move': {
        const qs = r.speed === undefined ? -1 : quantizeSpeed(r.speed);
        this.setRef(
          r.id,
          quantizeCoord(r.x),
          quantizeCoord(r.y),
          quantizeAngle(r.angle),
          r.moving,
          qs,
          r.age ?? 0,
        );
        return r;
      }
      case 'moveBy': {
        const ref = this.moveBy(
          r.id,
          r.dx,
          r.dy,
          r.angle === undefined ? -1 : quantizeAngle(r.angle),
          r.moving,
          r.speed === undefined ? -1 : quantizeSpeed(r.speed),
          r.age ?? 0,
        );
        if (!ref) return undefined;
        const move: MoveRecord = {
          kind: 'move',
          id: r.id,
          x: dequantizeCoord(ref.qx),
          y: dequantizeCoord(ref.qy),
          angle: dequantizeAngle(ref.qa),
          moving: ref.moving,
          jump: false,
          speed: r.speed === undefined ? undefined : dequantizeSpeed(ref.qs),
        };
        if (r.age) move.age = r.age;
        return move;
      }
      default:
        return r;
    }
  }

  /**
   * A path record as of the frame's time: from where the entity is then through the
   * waypoints not yet reached, or a standing move where it has arrived (or stopped).
   */
  private carried(id: number, r: PathRecord): PathRecord | MoveRecord {
    const e = this.get(id)!;
    const at = this.at;
    const next = this.reckon(e, this.time, at);
    const x = dequantizeCoord(at.qx);
    const y = dequantizeCoord(at.qy);
    if (!e.pts || next * 2 >= e.pts.length) {
      return {
        kind: 'move',
        id,
        x,
        y,
        angle: dequantizeAngle(at.qa),
        moving: false,
        jump: false,
        speed: undefined,
      };
    }
    if (next === 0 && e.t === this.time) return r;
    const carried: PathRecord = {
      kind: 'path',
      id,
      x,
      y,
      speed: r.speed,
      waypoints: r.waypoints.slice(next),
    };
    return carried;
  }
}

function clampStep(q: number): number {
  return q < 0 ? 0 : q > 65535 ? 65535 : q;
}
