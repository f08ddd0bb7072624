/**
 * The clock remote entities are drawn by: the local clock mapped to server time from the
 * server times stamped on what arrives (WorldUpdate, EnterWorld, Pong), minus an
 * interpolation delay that adapts to how late arrivals are. Drawing behind the newest
 * arrival, not behind the true server clock, means the state that ends a segment (a stop, a
 * turn) has nearly always arrived before the drawn time gets there, whatever the latency.
 *
 *   offset   the fastest arrival of the last FASTEST_WINDOW_MS: server time minus local time
 *   lateness how much later than that each arrival came (link jitter, and TCP's stalls)
 *   jitter   the JITTER_PERCENTILE of the lateness of recent arrivals
 *   delay    jitter + DELAY_MARGIN_MS, within [MIN_DELAY_MS, MAX_DELAY_MS]
 *   heard    the newest server time known to be complete: every state up to it has arrived
 *            (the link keeps order; the newest WorldUpdate's time)
 *
 * The drawn time follows `serverNow - delay` but never runs more than HOLD_MS past `heard`:
 * when the link stalls, remote entities are held where they were at the newest time heard,
 * not walked on past a stop that is still on its way and pulled back when the stall ends
 * (the server sends a WorldUpdate every tick to a client that sees a walking player, so a
 * quiet tick is heard too). The
 * drawn time never jumps: it runs at 0 to MAX_RATE times the local clock, so after a stall
 * (or when the delay grows or shrinks) it catches up or falls back smoothly.
 *
 * Time is passed in; the drawn time moves on when asked for a later local time.
 */
import { INTERPOLATION_DELAY_MS } from '../../../shared/game/interpolation.js';

/** The least delay: two ticks at 20 Hz (a walker's own link and the tick wait, unseen here). */
export const MIN_DELAY_MS = INTERPOLATION_DELAY_MS;
/** The most delay: past it a stall is held and blended, not waited for. */
export const MAX_DELAY_MS = 500;
/** Added to the measured jitter: the tick wait and the jitter of the walker's own link. */
export const DELAY_MARGIN_MS = 100;
/**
 * How far the drawn time may run on past what has been heard: to a tick (at 20 Hz) short of
 * it. The server dates a state no later than the update that carries it, but up to a tick
 * before the update that came before that one: an entity of the neighbouring zone seen
 * across the border reaches this zone's updates a tick after its own, and a start placed
 * where the walk left its spot, or a walker held when its inputs stalled, is dated back up to
 * a tick. So every state up to `heard` less a tick is here, and what is drawn is where the
 * server had each entity; past it a stop may still be on its way. Drawn a tick or more
 * behind the newest update anyway (MIN_DELAY_MS), a client feels it only while its link stalls.
 */
export const HOLD_MS = -50;
/** The drawn time runs at most this much faster than the local clock while it catches up. */
export const MAX_RATE = 1.15;
/** How far the drawn time must be off its target for the rate to reach its bounds. */
const RATE_SPAN_MS = 300;
/** The fastest arrival is looked for over this long. */
const FASTEST_WINDOW_MS = 5000;
/** Lateness is measured over the last this many arrivals, and this long at most. */
const JITTER_SAMPLES = 128;
const JITTER_WINDOW_MS = 10_000;
export const JITTER_PERCENTILE = 0.95;

interface Arrival {
  at: number;
  sample: number;
  lateness: number;
}

export class RenderClock {
  /** A fixed delay (the lab's slider), or undefined to adapt. */
  fixedDelayMs: number | undefined;
  /** The delay aimed at now (ms). */
  delayMs: number;
  /** The measured arrival jitter (ms). */
  jitterMs = 0;
  /** The newest server time every state up to which has arrived; undefined before any. */
  heard: number | undefined;
  /**
   * Whether the drawn time is held HOLD_MS past `heard` (while something is dead-reckoned:
   * a remote player walking). Without it the drawn time runs on whatever was heard: mob paths
   * say where they go ahead of time, and a quiet link would otherwise stop them.
   */
  bounded = true;
  private offset: number | undefined;
  private readonly arrivals: Arrival[] = [];
  /** The drawn time at local time `drawnAt`. */
  private drawn: number | undefined;
  private drawnAt = 0;

  constructor(delayMs?: number) {
    this.fixedDelayMs = delayMs;
    this.delayMs = delayMs ?? MIN_DELAY_MS;
  }

  get synced(): boolean {
    return this.offset !== undefined;
  }

  /** Whether the drawn time is held back at what has been heard (the link stalls). */
  holding(localNow: number): boolean {
    return this.bounded && this.heard !== undefined && this.renderTime(localNow) >= this.heard + HOLD_MS - 1;
  }

  /** Something stamped with `serverTime` (a WorldUpdate's, EnterWorld's) arrived at `localNow`. */
  observe(serverTime: number, localNow: number): void {
    this.arrive(serverTime, localNow);
    this.hear(serverTime);
  }

  /**
   * A Pong made at `serverTime` arrived: it sets the clock, but vouches for nothing heard. A
   * Pong is answered at once, while a tick that runs late has not sent its states yet; what
   * is heard comes from WorldUpdates, which come every tick while a walker is in view.
   */
  observePong(serverTime: number, localNow: number): void {
    this.arrive(serverTime, localNow);
  }

  /** Starts over (a new world): the next arrival sets the clock at once. */
  reset(): void {
    this.offset = undefined;
    this.heard = undefined;
    this.arrivals.length = 0;
    this.drawn = undefined;
    this.jitterMs = 0;
    this.delayMs = this.fixedDelayMs ?? MIN_DELAY_MS;
  }

  /** The server time of the newest arrivals, as seen from here. */
  serverNow(localNow: number): number {
    return localNow + (this.offset ?? 0);
  }

  /** The server time remote entities are drawn at. */
  renderTime(localNow: number): number {
    const target = this.target(localNow);
    if (this.drawn === undefined) {
      this.drawn = target;
      this.drawnAt = localNow;
      return target;
    }
    const dt = localNow - this.drawnAt;
    if (dt === 0) return this.drawn;
    // Asked about an earlier moment (a test, a second look): what the target was then.
    if (dt < 0) return Math.min(this.drawn, target);
    // How far off the target the drawn time would be if it ran on at the local clock's pace.
    const off = target - (this.drawn + dt);
    const rate = Math.min(MAX_RATE, Math.max(0, 1 + off / RATE_SPAN_MS));
    let next = this.drawn + rate * dt;
    // Never past the hold, never back (the hold only stops the clock; it is not rewound).
    if (this.heard !== undefined && this.bounded)
      next = Math.min(next, Math.max(this.drawn, this.heard + HOLD_MS));
    this.drawn = next;
    this.drawnAt = localNow;
    return next;
  }

  private target(localNow: number): number {
    const ideal = this.serverNow(localNow) - this.delayMs;
    return this.heard === undefined || !this.bounded ? ideal : Math.min(ideal, this.heard + HOLD_MS);
  }

  private hear(serverTime: number): void {
    if (this.heard === undefined || serverTime > this.heard) this.heard = serverTime;
  }

  private arrive(serverTime: number, localNow: number): void {
    const sample = serverTime - localNow;
    const arrivals = this.arrivals;
    while (
      arrivals.length > 0 &&
      (arrivals.length >= JITTER_SAMPLES || (arrivals[0] as Arrival).at < localNow - JITTER_WINDOW_MS)
    ) {
      arrivals.shift();
    }
    let fastest = sample;
    for (const a of arrivals)
      if (a.at >= localNow - FASTEST_WINDOW_MS && a.sample > fastest) fastest = a.sample;
    const first = this.offset === undefined;
    this.offset = fastest;
    arrivals.push({ at: localNow, sample, lateness: fastest - sample });
    this.jitterMs = percentile(
      arrivals.map((a) => a.lateness),
      JITTER_PERCENTILE,
    );
    this.delayMs =
      this.fixedDelayMs ??
      Math.min(MAX_DELAY_MS, Math.max(MIN_DELAY_MS, Math.round(this.jitterMs + DELAY_MARGIN_MS)));
    // The first arrival (or the first after a reset) sets the drawn time outright.
    if (first) this.drawn = undefined;
  }
}

/** The p-th quantile (0..1) of `values`, nearest rank; 0 when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank] as number;
}
