/**
 * Netcode truth for bench/netcode.ts: what the server had, and how far from it a watcher drew.
 *
 * The server's record of a player is where its newest accepted input put it (x, y) and that
 * input's time on the server's timeline (`inputAt`), whether it walks, its heading and speed.
 * ServerRecord keeps one motion state per change of that record, read after every tick, so
 * sampleMotion (the same math a client draws with) gives where the server had the player at
 * any server time: on the line between two accepted inputs, dead-reckoned after the newest.
 * A respawn is a jump: the corpse is held up to the respawn's time, then the graveyard.
 *
 * A watcher's frame says when it was drawn (its render clock's drawn time, server ms) and
 * where it drew the mover. figures() compares the two after the run, when the whole record
 * is known.
 */
import { sampleMotion } from '../../shared/game/interpolation.js';
import type { MotionState } from '../../shared/game/motion.js';
import { percentile } from '../../web-client/src/state/render-clock.js';

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

  observe(p: PlayerRecord, zone: string, now: number): void {
    if (p.timeline) {
      this.heldMax = Math.max(this.heldMax, p.timeline.held);
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

export interface Spread {
  p50: number;
  p99: number;
  max: number;
}

export interface PairFigures {
  /** Frames the mover was drawn in (within the record). */
  frames: number;
  /** Frames the watcher did not have the mover in its view. */
  unseen: number;
  /** Distance from where the server had the mover at the drawn time (units). */
  error: Spread;
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

export const SLIDE_BACK_UNITS = 1;
/**
 * Near a jump (a respawn) a frame may show either side of it: one shown early or late is
 * timed (jumpShownMs), and its distance from the side it shows is its error.
 */
export const JUMP_GRACE_MS = 1000;
export const EVENT_WINDOW_MS = 2000;
/** Before a stop's time, frames this far back count toward its overshoot (drawn ahead of time). */
const STOP_LEAD_MS = 500;

export interface Stop {
  /** Server ms the record shows it standing. */
  t: number;
  /** When it walks (or jumps) again. */
  until: number;
  x: number;
  y: number;
  /** Unit direction of the walk into the stop. */
  dx: number;
  dy: number;
  /** The walk into it began (server ms). */
  from: number;
}

/** Each change from walking to standing in the record (a death is an event, not a stop). */
export function stops(states: readonly TruthState[]): Stop[] {
  const out: Stop[] = [];
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
      dx: Math.cos(prev.angle),
      dy: Math.sin(prev.angle),
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

const distance = (a: { x: number; y: number }, b: { x: number; y: number }) =>
  Math.hypot(a.x - b.x, a.y - b.y);

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

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { p50: 0, p99: 0, max: 0 };
  return {
    p50: percentile(values, 0.5),
    p99: percentile(values, 0.99),
    max: Math.max(...values),
  };
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
      const drawn = (f.x - s.x) * s.dx + (f.y - s.y) * s.dy;
      const had = (truth.x - s.x) * s.dx + (truth.y - s.y) * s.dy;
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
