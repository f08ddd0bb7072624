/**
 * Per-entity snapshot tracks for remote entities, and the clock that decides which past
 * server time to draw. A movement state (shared/game/motion.ts) adds a snapshot at its time
 * and, while walking, the dead-reckoned point MAX_DEAD_RECKON_MS later, held there: the next
 * state replaces that projection, so between states the entity walks the line between them
 * (a stop is exact) and an entity whose updates stall is held, not pulled back. A mob path is
 * turned into snapshots at each waypoint's arrival time, so all are sampled the same way.
 */
import { deadReckon, MAX_DEAD_RECKON_MS, type MotionState } from '../../../shared/game/motion.js';
import {
  INTERPOLATION_DELAY_MS,
  MAX_EXTRAPOLATION_MS,
  facingOf,
  sampleSnapshots,
  type Snapshot,
} from '../../../shared/game/interpolation.js';
import type { Vec2 } from '../../../shared/game/movement.js';
import { positionAlongPath } from '../../../shared/game/movement.js';

/** Snapshots older than this behind the drawn time are dropped (one older one is kept). */
const KEEP_BEHIND_MS = 1000;
/** Hard cap per entity, for a very long path or a flood of moves. */
const MAX_SNAPSHOTS = 64;

export interface ActivePath {
  start: Vec2;
  waypoints: Vec2[];
  speed: number;
  startTime: number;
}

export class EntityTrack {
  readonly snapshots: Snapshot[] = [];
  /** The newest position the server sent, as sent (the "ghost"). */
  raw: Snapshot;
  /** The newest MobPath, to place the ghost where the server has the mob now. */
  path: ActivePath | undefined;
  /** The newest movement state while it walks, to place the ghost where the server has it now. */
  private walking: MotionState | undefined;

  constructor(x: number, y: number, facing: number, t: number) {
    this.raw = { t, x, y, facing };
    this.snapshots.push({ t, x, y, facing });
  }

  /** A position the server sent for time t; anything the track held at or after t is replaced. */
  push(t: number, x: number, y: number, facing: number): void {
    this.cutFrom(t);
    this.snapshots.push({ t, x, y, facing });
    this.raw = { t, x, y, facing };
    this.path = undefined;
    this.walking = undefined;
    this.cap();
  }

  /** A movement state at server time t (walking along `angle` at `speed`, or standing). */
  pushState(
    t: number,
    x: number,
    y: number,
    angle: number,
    moving: boolean,
    speed: number,
    jump: boolean,
  ): void {
    if (jump) this.snapshots.length = 0;
    this.cutFrom(t);
    this.snapshots.push({ t, x, y, facing: angle });
    const end = moving ? deadReckon({ x, y, t, moving, angle, speed }, t + MAX_DEAD_RECKON_MS) : { x, y };
    const until = moving ? t + MAX_DEAD_RECKON_MS : t + 1;
    if (moving) this.snapshots.push({ t: until, x: end.x, y: end.y, facing: angle });
    // A repeat of the last point so sampling past the end holds still instead of extrapolating.
    this.snapshots.push({ t: until + 1, x: end.x, y: end.y, facing: angle });
    this.raw = { t, x, y, facing: angle };
    this.path = undefined;
    this.walking = moving ? { x, y, t, moving, angle, speed } : undefined;
    this.cap();
  }

  /** Jump without interpolating (respawn, teleport): the track restarts at this point. */
  reset(t: number, x: number, y: number, facing: number): void {
    this.snapshots.length = 0;
    this.push(t, x, y, facing);
  }

  /** The mob leaves `origin` (where it is now by default) at startTime and walks the waypoints at speed. */
  pushPath(startTime: number, speed: number, waypoints: readonly Vec2[], origin?: Vec2): void {
    const at = sampleSnapshots(this.snapshots, startTime, 0) ?? this.raw;
    const start = origin ? { x: origin.x, y: origin.y } : { x: at.x, y: at.y };
    this.cutFrom(startTime);
    let facing = at.facing;
    this.snapshots.push({ t: startTime, x: start.x, y: start.y, facing });
    let from: Vec2 = start;
    let t = startTime;
    for (const wp of waypoints) {
      const leg = Math.hypot(wp.x - from.x, wp.y - from.y);
      t += speed > 0 ? (leg / speed) * 1000 : 0;
      facing = facingOf(from, wp, facing);
      this.snapshots.push({ t, x: wp.x, y: wp.y, facing });
      from = wp;
    }
    // A repeat of the last point so sampling past the end holds still instead of extrapolating.
    this.snapshots.push({ t: t + 1, x: from.x, y: from.y, facing });
    this.path = { start, waypoints: waypoints.map((w) => ({ x: w.x, y: w.y })), speed, startTime };
    this.raw = { t: startTime, x: start.x, y: start.y, facing: at.facing };
    this.walking = undefined;
    this.cap();
  }

  /**
   * Smooth position at server time t. Past the newest snapshot the entity is extrapolated for
   * up to MAX_EXTRAPOLATION_MS (a late packet then costs no stutter); if still nothing comes,
   * it has most likely stopped there, so it glides back to the newest snapshot over the same
   * time instead of standing on a guess (in a wall, past a corner) until the track is trimmed.
   */
  sample(t: number): Snapshot {
    const last = this.snapshots[this.snapshots.length - 1];
    if (!last || t <= last.t) return sampleSnapshots(this.snapshots, t) ?? this.raw;
    const past = t - last.t;
    const ahead = past <= MAX_EXTRAPOLATION_MS ? past : Math.max(0, 2 * MAX_EXTRAPOLATION_MS - past);
    const p = sampleSnapshots(this.snapshots, last.t + ahead) ?? this.raw;
    return { ...p, t };
  }

  /** Where the server has the entity at server time `now` (dead-reckoned walk, path, or latest state). */
  serverPosition(now: number): Snapshot {
    if (this.walking && now >= this.walking.t) {
      const p = deadReckon(this.walking, now);
      return { t: now, x: p.x, y: p.y, facing: this.walking.angle };
    }
    if (this.path && now >= this.path.startTime) {
      const p = positionAlongPath(
        this.path.start,
        this.path.waypoints,
        this.path.speed,
        now - this.path.startTime,
      );
      return { t: now, x: p.x, y: p.y, facing: p.facing ?? this.raw.facing };
    }
    return this.raw;
  }

  /** Forget snapshots no longer needed to draw time t (keeps one at or before t). */
  trim(t: number): void {
    const cutoff = t - KEEP_BEHIND_MS;
    let drop = 0;
    while (drop < this.snapshots.length - 1 && (this.snapshots[drop + 1] as Snapshot).t <= cutoff) drop++;
    if (drop > 0) this.snapshots.splice(0, drop);
  }

  private cutFrom(t: number): void {
    while (this.snapshots.length > 0 && (this.snapshots[this.snapshots.length - 1] as Snapshot).t >= t) {
      this.snapshots.pop();
    }
  }

  private cap(): void {
    if (this.snapshots.length > MAX_SNAPSHOTS)
      this.snapshots.splice(0, this.snapshots.length - MAX_SNAPSHOTS);
  }
}

/** Below this many samples the clock follows the newest sample at once. */
const SETTLE_SAMPLES = 3;
/** How fast the offset drifts down toward slower arrivals (per sample). */
const DECAY = 0.05;

/**
 * Maps the local clock to server time from the server times stamped on arriving ticks.
 * It tracks the fastest arrival (a later tick arriving early moves it up at once) and drifts
 * down slowly when every arrival is later, so added latency or jitter is absorbed by the
 * interpolation delay rather than by stutter.
 */
export class SnapshotClock {
  private offset: number | undefined;
  private samples = 0;
  delayMs: number;

  constructor(delayMs = INTERPOLATION_DELAY_MS) {
    this.delayMs = delayMs;
  }

  get synced(): boolean {
    return this.offset !== undefined;
  }

  observe(serverTime: number, localNow: number): void {
    const sample = serverTime - localNow;
    this.samples++;
    if (this.offset === undefined || sample > this.offset || this.samples <= SETTLE_SAMPLES) {
      this.offset = sample;
    } else {
      this.offset += (sample - this.offset) * DECAY;
    }
  }

  /** The server time of the newest arrivals, as seen from here. */
  serverNow(localNow: number): number {
    return localNow + (this.offset ?? 0);
  }

  /** The server time remote entities are drawn at. */
  renderTime(localNow: number): number {
    return this.serverNow(localNow) - this.delayMs;
  }
}
