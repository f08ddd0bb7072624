/**
 * Interpolation math both a browser client and a headless client can use: where a remote
 * entity was at a past server time, from timestamped snapshots (a mob's path is walked by
 * `positionAlongPath` in path.ts).
 * Remote entities are drawn INTERPOLATION_DELAY_MS behind the server clock, so there are
 * nearly always two snapshots around the drawn time and motion looks smooth between ticks.
 */
import type { Vec2 } from './movement.js';

/** How far behind the server clock remote entities are drawn: about two ticks at 20 Hz. */
export const INTERPOLATION_DELAY_MS = 100;
/** Past the newest snapshot, extrapolate at most this long before holding still. */
export const MAX_EXTRAPOLATION_MS = 150;

export interface Snapshot {
  /** Server time in ms the position held at. */
  t: number;
  x: number;
  y: number;
  facing: number;
}

const TAU = Math.PI * 2;

export function lerp(a: number, b: number, f: number): number {
  return a + (b - a) * f;
}

/** Interpolates an angle the short way round, result in [0, 2π). */
export function lerpAngle(a: number, b: number, f: number): number {
  let d = (((b - a) % TAU) + TAU) % TAU;
  if (d > Math.PI) d -= TAU;
  return (((a + d * f) % TAU) + TAU) % TAU;
}

/**
 * The position at server time `t` from snapshots sorted by time. Before the first: the first.
 * Between two: linear. After the last: extrapolated along the last segment for at most
 * `maxExtrapolationMs`, then held. Undefined only when there are no snapshots.
 */
export function sampleSnapshots(
  snapshots: readonly Snapshot[],
  t: number,
  maxExtrapolationMs = MAX_EXTRAPOLATION_MS,
): Snapshot | undefined {
  const n = snapshots.length;
  const first = snapshots[0];
  const last = snapshots[n - 1];
  if (!first || !last) return undefined;
  if (t <= first.t) return { ...first, t };
  if (t >= last.t) {
    const prev = snapshots[n - 2];
    const ahead = Math.min(t - last.t, maxExtrapolationMs);
    if (!prev || ahead <= 0 || last.t <= prev.t) return { ...last, t };
    const f = ahead / (last.t - prev.t);
    return {
      t,
      x: last.x + (last.x - prev.x) * f,
      y: last.y + (last.y - prev.y) * f,
      facing: last.facing,
    };
  }
  // Binary search for the last snapshot at or before t.
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((snapshots[mid] as Snapshot).t <= t) lo = mid;
    else hi = mid;
  }
  const a = snapshots[lo] as Snapshot;
  const b = snapshots[hi] as Snapshot;
  const f = b.t > a.t ? (t - a.t) / (b.t - a.t) : 1;
  return { t, x: lerp(a.x, b.x, f), y: lerp(a.y, b.y, f), facing: lerpAngle(a.facing, b.facing, f) };
}

/** The angle of motion from a to b, or `fallback` when they are the same point. */
export function facingOf(a: Vec2, b: Vec2, fallback: number): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  if (dx === 0 && dy === 0) return fallback;
  return (Math.atan2(dy, dx) + TAU) % TAU;
}
