/**
 * An entity's motion record, and the motion references every holder of the entity keeps.
 *
 * A player's movement state goes as a moveBy, relative to its motion reference (the state of
 * its last move record, kept here per entity exactly as clients keep it), unless it jumps;
 * spawns and resyncs send the reference itself (with its age), so every holder of the
 * entity shares it. A mob's new path goes HERE, from where its reference (its last path, or
 * where that stopped it) puts it, and a mob stopping mid-way is a HERE path with no
 * waypoints; spawns and resyncs send its reference path itself, aged.
 */
import type { Writer } from '../../shared/codec/writer.js';
import { deadReckon } from '../../shared/game/motion.js';
import {
  quantizeAngle,
  quantizeCoord,
  quantizePoints,
  quantizeSpeed,
  reckonPath,
  reckonRef,
  writeRecordBody,
  type MotionRef,
  type PathRef,
} from '../../shared/protocol/index.js';
import { remainingRoute } from '../world/mobs.js';
import type { Entity, Mob } from '../world/index.js';
import type { StepClock } from './messages.js';

/**
 * How far (coord steps, each axis) a mob may stand from where its reference puts it for a
 * new path to go HERE: its route starts from its exact position, the reference from the
 * quantized one, so the two differ by a step or so along the way.
 */
const HERE_SLACK = 2;

/** A mob's path reference, as every holder of the mob keeps it. */
interface MobRef extends PathRef {
  pts: number[];
}

export class MotionWriter {
  /** Each player's motion reference: the state its last move record left with every holder. */
  private readonly refs = new Map<number, MotionRef>();
  /**
   * Each mob's path reference: its last path as sent to every holder (fresh records only,
   * which go to all of them). None until its first path, and none again after it died or
   * left, until a path sent absolute starts a new one.
   */
  private readonly mobRefs = new Map<number, MobRef>();
  private readonly reckoned = { qx: 0, qy: 0, qa: 0 };

  constructor(private readonly clock: StepClock) {}

  /** The entity left: a holder that meets it again gets it anew. */
  forget(id: number): void {
    this.refs.delete(id);
    this.mobRefs.delete(id);
  }

  /** A mob died or respawned: its next path goes absolute. */
  forgetPath(id: number): void {
    this.mobRefs.delete(id);
  }

  /**
   * An entity's motion as of now. A player: with `fresh` (its state changed this tick), the
   * new state, as a moveBy from its reference unless it jumped, and the new state becomes the
   * reference; else (a spawn, a resync) the reference itself, aged, so the receiver holds the
   * same reference as everyone else. A mob: its path from here, or where it stands.
   */
  write(w: Writer, e: Entity, idDelta: number, fresh: boolean, jump = false): void {
    if (e.kind !== 'player') {
      this.writeMob(w, e, idDelta, fresh);
      return;
    }
    const time = this.clock.time;
    let ref = this.refs.get(e.id);
    if (!fresh && ref) {
      const age = ref.moving ? time - ref.t : 0;
      const qs = ref.qs === quantizeSpeed(e.speed) ? -1 : ref.qs;
      writeRecordBody.moveSteps(w, idDelta, ref.qx, ref.qy, ref.qa, ref.moving, false, qs, age);
      return;
    }
    const s = e.sent;
    // A moveBy gives the state as it was when its client sent it (`age` ms before the frame),
    // against where the reference puts the entity then: a start, stop or turn is then a step
    // of a few coord units at most, whatever the wait between the input and the frame. A
    // jump, or an entity without a reference, goes absolute at the frame's time.
    const relative = ref !== undefined && !jump;
    const age = relative ? Math.max(0, Math.round(time - s.t)) : 0;
    const t = time - age;
    const at = deadReckon(s, t);
    const qx = quantizeCoord(at.x);
    const qy = quantizeCoord(at.y);
    const qa = quantizeAngle(s.angle);
    const qs = s.moving && s.speed !== e.speed ? quantizeSpeed(s.speed) : -1;
    if (relative) {
      reckonRef(ref!, t, this.reckoned);
      const dqx = qx - this.reckoned.qx;
      const dqy = qy - this.reckoned.qy;
      writeRecordBody.moveBy(w, idDelta, dqx, dqy, qa === ref!.qa ? -1 : qa, s.moving, qs, age);
    } else writeRecordBody.moveSteps(w, idDelta, qx, qy, qa, s.moving, jump, qs, 0);
    if (!ref) this.refs.set(e.id, (ref = { qx, qy, qa, moving: s.moving, qs: 0, t: 0 }));
    ref.qx = qx;
    ref.qy = qy;
    ref.qa = qa;
    ref.moving = s.moving;
    ref.qs = qs >= 0 ? qs : quantizeSpeed(e.speed);
    ref.t = t;
  }

  /**
   * A mob's motion. Fresh (its route changed this tick; the record goes to every holder):
   * its new route, HERE when it starts where the mob's reference puts it (a stop is a HERE
   * path with no waypoints), and the record becomes the reference. A spawn or resync: the
   * reference itself, aged, or where it has brought the mob to a stand; without one, the
   * mob's state as it is.
   */
  private writeMob(w: Writer, m: Mob, idDelta: number, fresh: boolean): void {
    const ref = this.mobRefs.get(m.id);
    if (!fresh && ref) this.writeMobRef(w, m, ref, idDelta);
    else this.writeMobRoute(w, m, ref, idDelta, fresh);
  }

  /** The mob's reference path, aged, or where it has brought the mob to a stand. */
  private writeMobRef(w: Writer, m: Mob, ref: MobRef, idDelta: number): void {
    const time = this.clock.time;
    const at = this.reckoned;
    const next = reckonPath(ref, time, at);
    if (next * 2 >= ref.pts.length)
      writeRecordBody.moveSteps(w, idDelta, at.qx, at.qy, at.qa, false, false, -1, 0);
    else {
      const qs = ref.qs === quantizeSpeed(m.speed) ? -1 : ref.qs;
      writeRecordBody.pathSteps(w, idDelta, ref.qx, ref.qy, qs, ref.pts, time - ref.t);
    }
  }

  /** The mob's route as it is (HERE when fresh and where its reference puts it); fresh, it becomes the reference. */
  private writeMobRoute(w: Writer, m: Mob, ref: MobRef | undefined, idDelta: number, fresh: boolean): void {
    const time = this.clock.time;
    const route = m.route;
    const spawnQs = quantizeSpeed(m.speed);
    const qx = quantizeCoord(m.x);
    const qy = quantizeCoord(m.y);
    const at = this.reckoned;
    const waypoints = route && m.alive ? remainingRoute(route, time) : [];
    const pts = quantizePoints(waypoints);
    // A route that only stops the mob where it is (one point, here) is a stand.
    if (pts.length === 2 && pts[0] === qx && pts[1] === qy) pts.length = 0;
    const routeQs = route ? quantizeSpeed(route.speed) : spawnQs;
    const qs = pts.length === 0 || routeQs === spawnQs ? -1 : routeQs;
    let sx = qx;
    let sy = qy;
    let sa = quantizeAngle(m.facing);
    let here = false;
    if (fresh && ref) {
      reckonPath(ref, time, at);
      if (Math.abs(at.qx - qx) <= HERE_SLACK && Math.abs(at.qy - qy) <= HERE_SLACK) {
        here = true;
        sx = at.qx;
        sy = at.qy;
        if (pts.length === 0) sa = at.qa;
      }
    }
    if (here) writeRecordBody.pathSteps(w, idDelta, -1, -1, qs, pts);
    else if (pts.length === 0) writeRecordBody.moveSteps(w, idDelta, qx, qy, sa, false, false, -1, 0);
    else writeRecordBody.pathSteps(w, idDelta, qx, qy, qs, pts);
    if (!fresh) return;
    if (!ref) this.mobRefs.set(m.id, (ref = { qx: 0, qy: 0, qa: 0, qs: 0, t: 0, pts }));
    ref.qx = sx;
    ref.qy = sy;
    ref.qa = sa;
    ref.qs = routeQs;
    ref.t = time;
    ref.pts = pts;
  }
}
