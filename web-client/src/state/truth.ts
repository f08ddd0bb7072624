/**
 * The server's truth and how far from it a view drew what it shows: one module for the
 * netcode lab's page (live, from the lab feed) and the netcode bench (after a run, from the
 * world's own Player), so both find stops and measure drawn error, overshoot and slide-backs
 * with the same rules (stops as Stop, `along` a stop's way, SLIDE_BACK_UNITS, `spread`).
 *
 * The lab's record (TruthRecord) keeps, per entity, the feed's positions as motion states, one per
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
 * The bench's record (ServerRecord, below) is where the mover's newest accepted input put it,
 * read from the world after every tick, deaths and respawns included; `figures` compares a
 * watcher's frames with it once the whole run is known.
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

/**
 * The way the record has a walker go from its state `s`: its heading, unless the way to its
 * next state runs back against it. The feed reports the newest state of each tick, as the
 * server sends it: a walker that turned back and turned again within one tick (the lab's
 * walk home begun a frame into the square, then the square again) is recorded on the line
 * between the two states, which is its way there, and a pane that draws it there goes back
 * against the heading with the record, not away from it.
 */
export function walkAngle(s: MotionState, next: MotionState | undefined): number {
  if (!next) return s.angle;
  const dx = next.x - s.x;
  const dy = next.y - s.y;
  if (dx * Math.cos(s.angle) + dy * Math.sin(s.angle) >= 0) return s.angle;
  return Math.atan2(dy, dx);
}

/** How far `p` lies from the stop point along the way the walker came (negative: short of it). */
export function along(stop: Stop, p: { x: number; y: number }): number {
  return (p.x - stop.x) * Math.cos(stop.angle) + (p.y - stop.y) * Math.sin(stop.angle);
}

/** How far `p` lies past the stop along the way the walker came (0 when short of it). */
export function overshootPast(stop: Stop, p: { x: number; y: number }): number {
  return Math.max(0, along(stop, p));
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
    // The way the record has it walk: its heading (or the way to its next state, where that
    // runs back against it); at a stop the way it came, until it leaves for its next state,
    // then the way it leaves (back the way it came, as the lab's walk home may).
    const angle = s?.moving
      ? walkAngle(s, next)
      : s && stop && next && f.t >= until
        ? Math.atan2(next.y - s.y, next.x - s.x)
        : stop?.angle;
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

export interface Spread {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

/** The median, 99th percentile and largest of `values` (all 0 for none). */
export function spread(values: readonly number[]): Spread {
  return {
    samples: values.length,
    p50: percentile(values, 0.5),
    p99: percentile(values, 0.99),
    max: values.reduce((m, e) => Math.max(m, e), 0),
  };
}

const distance = (a: { x: number; y: number }, b: { x: number; y: number }) =>
  Math.hypot(a.x - b.x, a.y - b.y);

// ---- the bench: one mover's record over a whole run, judged after it ---------------------

export interface TruthState extends MotionState {
  alive: boolean;
  /** A discontinuity (respawn): nothing walks from the state before to this one. */
  jump: boolean;
}

/** What the server holds about a player after a tick (server/world's Player, as far as read). */
export interface PlayerRecord {
  x: number;
  y: number;
  inputAt: number;
  moving: boolean;
  facing: number;
  moveSpeed: number;
  alive: boolean;
  /** Its input timeline (server/world/timeline.ts): how long its inputs are held, how many came late. */
  timeline?: { held: number; late: number };
}

export type EventKind = 'death' | 'respawn' | 'crossing';

export interface TruthEvent {
  kind: EventKind;
  /**
   * Server ms the record has it from: a death from the dead player's newest input's time
   * (where the corpse lies), a respawn or a crossing from the tick that showed it.
   */
  t: number;
}

export class ServerRecord {
  readonly states: TruthState[] = [];
  readonly events: TruthEvent[] = [];
  private zone: string | undefined;

  /** The player as the tick at server time `now` left it, in zone `zone`. */
  /**
   * The most the server held the player's inputs (ms): the delay every watcher pays for its
   * link, on top of the watcher's own; and how many inputs came later than their time.
   */
  heldMax = 0;
  late = 0;
  /**
   * Server times its inputs stalled past what the server's window allowed for: held for one
   * overdue, or one came later than its time (each a stall where its inputs stopped coming).
   */
  readonly stalls: number[] = [];

  observe(p: PlayerRecord, zone: string, now: number): void {
    if (p.timeline) {
      this.heldMax = Math.max(this.heldMax, p.timeline.held);
      if (p.timeline.late > this.late) this.stalls.push(now);
      this.late = p.timeline.late;
    }
    const last = this.states[this.states.length - 1];
    if (this.zone !== undefined && zone !== this.zone) this.events.push({ kind: 'crossing', t: now });
    this.zone = zone;
    const walking = p.moving && p.alive;
    const next: TruthState = {
      x: p.x,
      y: p.y,
      // An input's time may come out a little earlier than the one before (the clock offset
      // the server estimates only falls); the record never runs backwards.
      t: Math.max(p.inputAt, last?.t ?? -Infinity),
      moving: walking,
      angle: p.facing,
      speed: walking ? p.moveSpeed : 0,
      alive: p.alive,
      jump: false,
    };
    if (!last) {
      this.states.push(next);
      return;
    }
    if (last.alive && !p.alive) this.events.push({ kind: 'death', t: next.t });
    if (!last.alive && p.alive) {
      this.events.push({ kind: 'respawn', t: now });
      // The corpse lies where it fell until the respawn; then it stands at the graveyard.
      const at = Math.max(next.t, last.t);
      const corpse = sampleMotion(this.states, at)!;
      this.states.push({ ...last, x: corpse.x, y: corpse.y, t: at - 1e-3, moving: false, speed: 0 });
      this.states.push({ ...next, t: at, jump: true });
      return;
    }
    if (
      last.x === next.x &&
      last.y === next.y &&
      last.moving === next.moving &&
      last.angle === next.angle &&
      last.speed === next.speed &&
      last.alive === next.alive
    )
      return;
    // The same input's time with a new state (refused, stopped for silence, died): from then on.
    if (next.t === last.t && !last.jump) this.states[this.states.length - 1] = next;
    else this.states.push(next);
  }

  at(t: number): { x: number; y: number } | undefined {
    return sampleMotion(this.states, t);
  }
}

/** One frame of a watcher: when it drew (server ms) and where it drew the mover. */
export interface WatcherFrame {
  /** The watcher's render clock's drawn time. */
  t: number;
  /** The watcher's server clock at that frame (the drawn time plus its own delay). */
  serverNow: number;
  x: number;
  y: number;
}

/** One frame of the mover: where it drew itself, and where the server had it at that moment. */
export interface MoverFrame {
  /** Page time. */
  at: number;
  x: number;
  y: number;
  /** The server's player as the world holds it at this frame (undefined mid hand-off). */
  server: { x: number; y: number; moving: boolean; alive: boolean } | undefined;
  /** Alive as the mover's own view has it. */
  alive: boolean;
  /** The mover's respawn has been shown to it. */
  respawned: boolean;
}

export interface PairFigures {
  /** Frames the mover was drawn in (within the record). */
  frames: number;
  /** Frames the watcher did not have the mover in its view. */
  unseen: number;
  /** Distance from where the server had the mover at the drawn time (units). */
  error: Spread;
  /**
   * The same over frames away from the mover's stalls (STALL_BEFORE_MS before one to
   * STALL_AFTER_MS after, in drawn time): where the mover's own inputs kept coming.
   */
  errorOutsideStalls: Spread;
  /** The largest error within a stall's window (0 without stalls). */
  errorInStalls: number;
  /** The mover's stalls (ServerRecord.stalls). */
  stalls: number;
  stops: number;
  /**
   * How far past each stop point, along the walk into it, the mover was drawn while the server
   * had it short of there (units), from STOP_LEAD_MS before the stop until it moves on.
   */
  overshoot: Spread;
  /** The largest error at the last frame of a stop, before it moves on (units). */
  endError: number;
  /** Stops where the drawn mover moved back, against the walk, SLIDE_BACK_UNITS more than the server's record did. */
  slideBacks: number;
  /** The watcher's own interpolation delay: its server clock less its drawn time (ms, median). */
  baseDelayMs: number;
  /**
   * How far behind the watcher's drawn time the mover is drawn on straight runs (ms, median):
   * what a watcher pays on top of its own delay to draw this mover.
   */
  addedDelayMs: number | null;
  /** Largest error within EVENT_WINDOW_MS of drawn time after each kind of event. */
  afterEvent: Partial<Record<EventKind, number>>;
  /**
   * Per jump in the record: the drawn time of the first frame nearer its new place than its
   * old, less the jump's time (ms; negative: shown before its time).
   */
  jumpShownMs: number[];
}

/**
 * Near a jump (a respawn) a frame may show either side of it: one shown early or late is
 * timed (jumpShownMs), and its distance from the side it shows is its error.
 */
export const JUMP_GRACE_MS = 1000;
export const EVENT_WINDOW_MS = 2000;
/**
 * A stall's window in drawn time: from a little before the server held the mover or took a
 * late input (the walk it ran on before), until every watcher has drawn what came after it
 * (the late inputs, a watcher's delay later).
 */
export const STALL_BEFORE_MS = 500;
export const STALL_AFTER_MS = 1500;
/** Before a stop's time, frames this far back count toward its overshoot (drawn ahead of time). */
const STOP_LEAD_MS = 500;

/** A stop in a whole run's record: how long it stood, and when the walk into it began. */
export interface WalkStop extends Stop {
  /** When it walks (or jumps) again. */
  until: number;
  /** The walk into it began (server ms). */
  from: number;
}

/** Each change from walking to standing in the record (a death is an event, not a stop). */
export function stops(states: readonly TruthState[]): WalkStop[] {
  const out: WalkStop[] = [];
  for (let i = 1; i < states.length; i++) {
    const s = states[i]!;
    const prev = states[i - 1]!;
    if (s.moving || !prev.moving || s.jump || !s.alive) continue;
    let j = i + 1;
    while (j < states.length && !states[j]!.moving && !states[j]!.jump && states[j]!.alive) j++;
    let k = i - 1;
    while (k > 0 && states[k - 1]!.moving) k--;
    out.push({
      t: s.t,
      until: states[j]?.t ?? Infinity,
      x: s.x,
      y: s.y,
      angle: prev.angle,
      from: states[k]!.t,
    });
  }
  return out;
}

interface Jump {
  t: number;
  from: { x: number; y: number };
  to: { x: number; y: number };
}

function jumps(states: readonly TruthState[]): Jump[] {
  const out: Jump[] = [];
  states.forEach((s, i) => {
    if (s.jump && i > 0) out.push({ t: s.t, from: states[i - 1]!, to: s });
  });
  return out;
}

/** Straight runs: spans of the record walking one heading at one speed. */
function runs(states: readonly TruthState[]): { from: number; to: number; angle: number; speed: number }[] {
  const out: { from: number; to: number; angle: number; speed: number }[] = [];
  for (let i = 0; i < states.length; i++) {
    const s = states[i]!;
    if (!s.moving) continue;
    const next = states[i + 1];
    const last = out[out.length - 1];
    const to = next?.t ?? Infinity;
    if (last && last.to === s.t && Math.abs(last.angle - s.angle) < 1e-3 && last.speed === s.speed)
      last.to = to;
    else out.push({ from: s.t, to, angle: s.angle, speed: s.speed });
  }
  return out;
}

/** What one watcher's frames say against the record. */
export function figures(record: ServerRecord, frames: readonly WatcherFrame[], unseen: number): PairFigures {
  const states = record.states;
  const first = states[0]?.t ?? Infinity;
  const inRecord = frames.filter((f) => f.t >= first);
  const jumped = jumps(states);
  const errors = inRecord.map((f) => {
    let error = distance(f, record.at(f.t)!);
    for (const j of jumped) {
      if (Math.abs(f.t - j.t) < JUMP_GRACE_MS)
        error = Math.min(error, distance(f, f.t < j.t ? j.to : j.from));
    }
    return error;
  });
  const jumpShownMs = jumped.flatMap((j) => {
    const shown = inRecord.find((f) => f.t >= j.t - JUMP_GRACE_MS && distance(f, j.to) < distance(f, j.from));
    return shown ? [shown.t - j.t] : [];
  });
  const inStall = (t: number) =>
    record.stalls.some((s) => t >= s - STALL_BEFORE_MS && t < s + STALL_AFTER_MS);
  const outside: number[] = [];
  const stalled: number[] = [];
  errors.forEach((e, i) => (inStall(inRecord[i]!.t) ? stalled : outside).push(e));
  const overshoots: number[] = [];
  let endError = 0;
  let slideBacks = 0;
  const all = stops(states);
  for (const s of all) {
    const lead = Math.max(s.from, s.t - STOP_LEAD_MS);
    let furthest = 0;
    let peak: { drawn: number; truth: number } | undefined;
    let slid = false;
    let lastError: number | undefined;
    for (let i = 0; i < inRecord.length; i++) {
      const f = inRecord[i]!;
      if (f.t < lead || f.t >= s.until) continue;
      const truth = record.at(f.t)!;
      // Along the walk into the stop, from the stop point: where it was drawn, where the server had it.
      const drawn = along(s, f);
      const had = along(s, truth);
      // Past the stop point and ahead of the server both: the record creeps toward where the
      // next walk starts (a unit or two), and a watcher drawing that creep overshoots nothing.
      furthest = Math.max(furthest, Math.min(drawn, drawn - had));
      if (!peak || drawn > peak.drawn) peak = { drawn, truth: had };
      // Drawn moving back more than the server's record moved back since the furthest point.
      else if (peak.drawn - drawn - Math.max(0, peak.truth - had) > SLIDE_BACK_UNITS) slid = true;
      lastError = errors[i]!;
    }
    if (lastError === undefined) continue;
    overshoots.push(furthest);
    if (slid) slideBacks++;
    if (s.until !== Infinity) endError = Math.max(endError, lastError);
  }
  const lags: number[] = [];
  const straight = runs(states);
  for (const f of inRecord) {
    const run = straight.find((r) => f.t >= r.from && f.t < r.to);
    if (!run || run.speed <= 0) continue;
    const truth = record.at(f.t)!;
    const dx = Math.cos(run.angle);
    const dy = Math.sin(run.angle);
    const along = (f.x - truth.x) * dx + (f.y - truth.y) * dy;
    const across = Math.abs((f.x - truth.x) * -dy + (f.y - truth.y) * dx);
    const lag = (-along / run.speed) * 1000;
    // Only where the drawn point lies on this same run, at the time it stands for.
    if (across > 1 || f.t - lag < run.from || f.t - lag >= run.to) continue;
    lags.push(lag);
  }
  const afterEvent: Partial<Record<EventKind, number>> = {};
  for (const e of record.events) {
    let worst = 0;
    inRecord.forEach((f, i) => {
      if (f.t >= e.t && f.t < e.t + EVENT_WINDOW_MS) worst = Math.max(worst, errors[i]!);
    });
    afterEvent[e.kind] = Math.max(afterEvent[e.kind] ?? 0, worst);
  }
  return {
    frames: inRecord.length,
    unseen,
    error: spread(errors),
    errorOutsideStalls: spread(outside),
    errorInStalls: stalled.reduce((m, e) => Math.max(m, e), 0),
    stalls: record.stalls.length,
    stops: overshoots.length,
    overshoot: spread(overshoots),
    endError,
    slideBacks,
    baseDelayMs: percentile(
      frames.map((f) => f.serverNow - f.t),
      0.5,
    ),
    addedDelayMs: lags.length > 0 ? percentile(lags, 0.5) : null,
    afterEvent,
    jumpShownMs,
  };
}

export interface MoverFigures {
  corrections: number;
  /** Corrections the mover took after its respawn was shown to it. */
  correctionsAfterRespawn: number;
  /**
   * How far from where the server has it the mover draws itself at rest: the largest distance
   * over frames where it has stood still REST_MS and the server has it standing.
   */
  selfRestError: number;
  /** The same after its respawn was shown to it (undefined when it never stood still since). */
  selfAfterRespawn: number | undefined;
}

/** The mover counts as at rest once it has not moved for this long. */
export const REST_MS = 700;

export function moverFigures(
  frames: readonly MoverFrame[],
  corrections: number,
  correctionsAfterRespawn: number,
): MoverFigures {
  let selfRestError = 0;
  let selfAfterRespawn: number | undefined;
  let stillSince = -Infinity;
  let prev: MoverFrame | undefined;
  for (const f of frames) {
    if (!prev || prev.x !== f.x || prev.y !== f.y) stillSince = f.at;
    prev = f;
    if (f.at - stillSince < REST_MS || !f.alive || !f.server || f.server.moving || !f.server.alive) continue;
    const off = distance(f, f.server);
    selfRestError = Math.max(selfRestError, off);
    if (f.respawned) selfAfterRespawn = Math.max(selfAfterRespawn ?? 0, off);
  }
  return { corrections, correctionsAfterRespawn, selfRestError, selfAfterRespawn };
}
