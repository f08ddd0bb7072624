/**
 * The netcode lab's truth: where the server had each entity at any server time (from the lab
 * feed), and how far from it a player's pane draws what it shows.
 *
 * The record (TruthRecord) keeps, per entity, the feed's positions as motion states, one per
 * distinct `at` (the server time its x, y held: a player's newest accepted input's time on the
 * server's timeline, a mob's tick), and samples them with the clients' own math
 * (sampleMotion: on the line between two states, dead-reckoned past the newest). A standing
 * state that follows a walking one is a stop: where it stood still and the way it walked.
 * A walk from standing gets a state where it left (as the clients' corners do): its first
 * input comes a frame or so into the walk, and the line from the stop would creep.
 *
 * The meter (DrawnErrorMeter) takes, every frame, where the pane drew each entity and the
 * server time it drew them at (its clock's drawn time). A frame is judged once the record
 * covers its time: a state dated at or after it has come, or the entity has been in the feed
 * for SETTLE_MS past it (one that stands sends no inputs; a late input may still fill in the
 * gap until then). Judging earlier would compare the pane with a guess. Per frame and entity:
 *
 *   drawn error   the distance between drawn and true positions
 *   overshoot     while the record has it standing at a stop (from the stop's time until it
 *                 left to reach its next state), how far past the stop point along the way
 *                 it walked it was drawn (the positive part)
 *   slide-back    the drawn position going back against the way the record has it walking
 *                 by more than SLIDE_BACK_UNITS from the furthest it got
 *
 * Nothing here reads a clock: times are arguments (page ms for frames, server ms otherwise).
 */
import { sampleMotion } from '../../../shared/game/interpolation.js';
import type { MotionState } from '../../../shared/game/motion.js';
import type { LabEntity } from '../../../shared/protocol/lab-feed.js';
import { Series } from './lab.js';
import { percentile } from './render-clock.js';

/** A frame is judged once the record is this far past its drawn time, whatever came. */
export const SETTLE_MS = 2000;
/** The record keeps this much of each entity's past (server ms). */
export const RECORD_KEEP_MS = 15_000;
/** The figures cover the frames drawn in the last this long (by drawn time). */
export const FIGURES_WINDOW_MS = 10_000;
/** A drawn error over this is marked on the view. */
export const MARK_UNITS = 2;
/** A drawn position going back by more than this against the walk is a slide-back. */
export const SLIDE_BACK_UNITS = 1;
/** A stand shorter than a tick is no stop (a silent walker stood, then walking on). */
const MIN_STAND_MS = 50;
/** Marks stay on the view this long (page ms). */
export const MARK_SHOWN_MS = 5000;
/** At most one mark per entity this often (page ms): an overshoot lasts many frames. */
const MARK_EVERY_MS = 100;
/** Frames wait this long (page ms) at most for the record to cover them. */
const PENDING_KEPT_MS = 10_000;
/** Judged errors kept since the last reset, for the figures of a whole run. */
const RUN_SAMPLES_KEPT = 100_000;
/** Stops kept since the last reset. */
const STOPS_KEPT = 200;

/** Where a walker stood still, when, and the way it had walked (radians). */
export interface Stop {
  x: number;
  y: number;
  t: number;
  angle: number;
}

export interface TrueState extends MotionState {
  /** For a standing state: the stop it stands at, when it walked to get there. */
  stop: Stop | undefined;
}

/** What the feed says of one entity (the fields the record reads). */
export type FeedEntity = Pick<LabEntity, 'id' | 'x' | 'y' | 'at' | 'facing' | 'moving' | 'speed'>;

interface Track {
  states: TrueState[];
  /** Server time of the newest snapshot the entity was in. */
  seen: number;
}

/** The server's record of every entity the feed has shown, as motion states. */
export class TruthRecord {
  /** Server time of the newest snapshot, undefined before any. */
  time: number | undefined;
  private readonly tracks = new Map<number, Track>();

  /** Takes one feed snapshot (every tick's, in order). */
  add(snap: { time: number; entities: readonly FeedEntity[] }): void {
    this.time = snap.time;
    for (const e of snap.entities) {
      let track = this.tracks.get(e.id);
      if (!track) this.tracks.set(e.id, (track = { states: [], seen: snap.time }));
      track.seen = snap.time;
      addState(track.states, e);
      const keepFrom = snap.time - RECORD_KEEP_MS;
      let drop = 0;
      while (drop + 1 < track.states.length && track.states[drop + 1]!.t <= keepFrom) drop++;
      if (drop > 0) track.states.splice(0, drop);
    }
    for (const [id, track] of this.tracks)
      if (track.seen < snap.time - RECORD_KEEP_MS) this.tracks.delete(id);
  }

  states(id: number): readonly TrueState[] {
    return this.tracks.get(id)?.states ?? [];
  }

  /**
   * Whether the record has settled what entity `id` did at server time `t`: 'known' (a state
   * dated at or after t has come, or the entity stayed in the feed SETTLE_MS past t),
   * 'unknown' (the record will not say: the entity was not in the feed then), or 'wait'.
   */
  covers(id: number, t: number): 'known' | 'unknown' | 'wait' {
    const track = this.tracks.get(id);
    const first = track?.states[0];
    const newest = track?.states[track.states.length - 1];
    // Before its first state the record cannot say where it was.
    if (track && first && t < first.t) return 'unknown';
    if (track && newest && newest.t >= t && track.seen >= t) return 'known';
    if (track && track.seen >= t + SETTLE_MS) return 'known';
    if (this.time !== undefined && this.time >= t + SETTLE_MS) return 'unknown';
    return 'wait';
  }

  /** Where the server had entity `id` at server time `t`, undefined when it never said. */
  at(id: number, t: number): { x: number; y: number } | undefined {
    return sampleMotion(this.states(id), t);
  }

  /**
   * The state in force at `t` (the newest at or before it; undefined before the first) and
   * the one after it, if it has come.
   */
  inForce(id: number, t: number): { now: TrueState | undefined; next: TrueState | undefined } {
    const states = this.states(id);
    let i = 0;
    while (i < states.length && states[i]!.t <= t) i++;
    return { now: states[i - 1], next: states[i] };
  }
}

/**
 * Appends the feed's word on an entity to its states: a new `at` is a new state; the same
 * `at` again replaces the newest (the server stopped a silent walker, or a mob's tick said it
 * again); an older `at` (a clock offset that crept back) is not the record's news and is left.
 */
export function addState(states: TrueState[], e: FeedEntity): void {
  const moving = e.moving && e.speed > 0;
  const last = states[states.length - 1];
  if (last && e.at < last.t) return;
  const replace = last !== undefined && e.at === last.t;
  const before = replace ? states[states.length - 2] : last;
  let stop: Stop | undefined;
  if (!moving && before) {
    if (before.moving) stop = { x: e.x, y: e.y, t: e.at, angle: before.angle };
    // Still standing where it stopped (turned on the spot, or a mob's every tick).
    else if (before.stop && before.x === e.x && before.y === e.y) stop = before.stop;
  }
  const s: TrueState = {
    x: e.x,
    y: e.y,
    t: e.at,
    moving,
    angle: e.facing,
    speed: moving ? e.speed : 0,
    stop,
  };
  if (replace) {
    states[states.length - 1] = s;
    return;
  }
  // A start is sent a frame or so into the walk: it stood until it had to leave to be there
  // (as the clients place it), not creeping from its spot since it stopped.
  if (moving && last && !last.moving) {
    const left = leftAt(last, s);
    if (left > last.t + 1 && left < s.t) states.push({ ...last, t: left });
  }
  states.push(s);
}

/** When an entity standing at `at` left it to be at `next` (a walking state) on time. */
export function leftAt(at: { x: number; y: number }, next: MotionState): number {
  if (!next.moving || !(next.speed > 0)) return next.t;
  return next.t - (Math.hypot(next.x - at.x, next.y - at.y) / next.speed) * 1000;
}

/** How far `p` lies past the stop along the way the walker came (0 when short of it). */
export function overshootPast(stop: Stop, p: { x: number; y: number }): number {
  return Math.max(0, (p.x - stop.x) * Math.cos(stop.angle) + (p.y - stop.y) * Math.sin(stop.angle));
}

/** Where a pane drew one entity in one frame. */
export interface DrawnEntity {
  id: number;
  x: number;
  y: number;
}

/** A drawn error over MARK_UNITS, for the view: where it was drawn and where it truly was. */
export interface ErrorMark {
  id: number;
  /** Page ms of the frame. */
  at: number;
  x: number;
  y: number;
  trueX: number;
  trueY: number;
  error: number;
}

/** One stop as a pane drew it: how far past it the entity went. */
export interface StopSeen {
  id: number;
  /** Server ms the record has it stop. */
  t: number;
  overshoot: number;
}

export interface ErrorFigures {
  /** Entity-frames judged. */
  samples: number;
  p50: number;
  p99: number;
  max: number;
  /** Stops drawn, and the furthest past one. */
  stops: number;
  overshoot: number;
  slideBacks: number;
}

interface PendingFrame {
  at: number;
  t: number;
  drawn: DrawnEntity[];
}

interface WalkWatch {
  angle: number;
  peak: number;
  backing: boolean;
}

/**
 * One pane's drawn error against the record: fed every frame (`frame`), judged as the record
 * settles (`settle`), figures over the last FIGURES_WINDOW_MS of drawn time and since reset.
 */
export class DrawnErrorMeter {
  /** The largest drawn error of each judged frame, at the frame's page time (for a plot). */
  readonly series = new Series();
  /** Drawn errors over MARK_UNITS, newest last (page time). */
  readonly marks: ErrorMark[] = [];
  /** Every stop drawn since the reset, oldest first. */
  readonly stops: StopSeen[] = [];
  /** Slide-backs since the reset, and their time (server ms). */
  slideBacks: number[] = [];
  private pending: PendingFrame[] = [];
  /** Judged errors of the window: drawn time and error. */
  private recent: { t: number; error: number }[] = [];
  /** Judged errors since the reset (capped). */
  private run: number[] = [];
  private readonly walks = new Map<number, WalkWatch>();
  private newestT = -Infinity;

  /** The pane drew `drawn` at page time `at`, for server time `t`. */
  frame(at: number, t: number, drawn: readonly DrawnEntity[]): void {
    this.pending.push({ at, t, drawn: drawn.map((d) => ({ id: d.id, x: d.x, y: d.y })) });
    // No feed (off, or gone): what it would have judged is dropped, not hoarded.
    while (this.pending.length > 0 && this.pending[0]!.at < at - PENDING_KEPT_MS) this.pending.shift();
  }

  /** Judges the frames the record now covers, oldest first. */
  settle(record: TruthRecord): void {
    while (this.pending.length > 0) {
      const f = this.pending[0]!;
      const cover = f.drawn.map((d) => record.covers(d.id, f.t));
      if (cover.includes('wait')) return;
      this.pending.shift();
      let worst: number | undefined;
      f.drawn.forEach((d, i) => {
        if (cover[i] !== 'known') return;
        const error = this.judge(record, f, d);
        if (error !== undefined) worst = Math.max(worst ?? 0, error);
      });
      if (worst !== undefined) this.series.push(f.at, worst);
    }
  }

  private judge(record: TruthRecord, f: PendingFrame, d: DrawnEntity): number | undefined {
    const truth = record.at(d.id, f.t);
    if (!truth) return undefined;
    const error = Math.hypot(d.x - truth.x, d.y - truth.y);
    this.newestT = Math.max(this.newestT, f.t);
    this.recent.push({ t: f.t, error });
    let drop = 0;
    while (drop < this.recent.length && this.recent[drop]!.t < this.newestT - FIGURES_WINDOW_MS) drop++;
    if (drop > 0) this.recent.splice(0, drop);
    this.run.push(error);
    if (this.run.length > RUN_SAMPLES_KEPT) this.run.splice(0, this.run.length - RUN_SAMPLES_KEPT);
    if (error > MARK_UNITS)
      this.mark({ id: d.id, at: f.at, x: d.x, y: d.y, trueX: truth.x, trueY: truth.y, error });

    const { now: s, next } = record.inForce(d.id, f.t);
    const stop = s && !s.moving ? s.stop : undefined;
    // Only while the record has it stand there: until it must have left to reach the next
    // state at that state's speed. A walker the server stood for silence, whose held-back
    // inputs then came, walked on from its last input without standing: that is no stop.
    const until = stop && next ? leftAt(stop, next) : Infinity;
    if (stop && until - stop.t >= MIN_STAND_MS && f.t < until) {
      const past = overshootPast(stop, d);
      let seen = this.stops.find((x) => x.id === d.id && x.t === stop.t);
      if (!seen) {
        this.stops.push((seen = { id: d.id, t: stop.t, overshoot: 0 }));
        if (this.stops.length > STOPS_KEPT) this.stops.shift();
      }
      seen.overshoot = Math.max(seen.overshoot, past);
    }
    // The way the record has it walk: its heading, or at a stop the way it came.
    const angle = s?.moving ? s.angle : stop?.angle;
    this.watchSlide(d, angle, f.t);
    return error;
  }

  private watchSlide(d: DrawnEntity, angle: number | undefined, t: number): void {
    if (angle === undefined) {
      this.walks.delete(d.id);
      return;
    }
    const along = d.x * Math.cos(angle) + d.y * Math.sin(angle);
    const w = this.walks.get(d.id);
    if (!w || w.angle !== angle) {
      this.walks.set(d.id, { angle, peak: along, backing: false });
      return;
    }
    if (along >= w.peak) {
      w.peak = along;
      w.backing = false;
    } else if (!w.backing && w.peak - along > SLIDE_BACK_UNITS) {
      w.backing = true;
      this.slideBacks.push(t);
    }
  }

  private mark(m: ErrorMark): void {
    const last = this.marks.findLast((x) => x.id === m.id);
    if (last && m.at - last.at < MARK_EVERY_MS) {
      if (m.error > last.error) Object.assign(last, m, { at: last.at });
      return;
    }
    this.marks.push(m);
  }

  /** The marks to show at page time `localNow` (older ones are forgotten). */
  marksAt(localNow: number): readonly ErrorMark[] {
    let drop = 0;
    while (drop < this.marks.length && this.marks[drop]!.at < localNow - MARK_SHOWN_MS) drop++;
    if (drop > 0) this.marks.splice(0, drop);
    return this.marks;
  }

  /** The figures of the last FIGURES_WINDOW_MS of drawn time. */
  figures(): ErrorFigures {
    const from = this.newestT - FIGURES_WINDOW_MS;
    const stops = this.stops.filter((s) => s.t >= from);
    return {
      ...spread(this.recent.map((r) => r.error)),
      stops: stops.length,
      overshoot: stops.reduce((m, s) => Math.max(m, s.overshoot), 0),
      slideBacks: this.slideBacks.filter((t) => t >= from).length,
    };
  }

  /** The figures since the last reset. */
  runFigures(): ErrorFigures {
    return {
      ...spread(this.run),
      stops: this.stops.length,
      overshoot: this.stops.reduce((m, s) => Math.max(m, s.overshoot), 0),
      slideBacks: this.slideBacks.length,
    };
  }

  /** Frames drawn but not judged yet. */
  get waiting(): number {
    return this.pending.length;
  }

  reset(): void {
    this.pending = [];
    this.recent = [];
    this.run = [];
    this.marks.length = 0;
    this.stops.length = 0;
    this.slideBacks = [];
    this.walks.clear();
    this.newestT = -Infinity;
  }
}

function spread(errors: readonly number[]): { samples: number; p50: number; p99: number; max: number } {
  return {
    samples: errors.length,
    p50: percentile(errors, 0.5),
    p99: percentile(errors, 0.99),
    max: errors.reduce((m, e) => Math.max(m, e), 0),
  };
}
