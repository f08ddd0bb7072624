/**
 * What the page adds to an entity beyond the SDK's world view: how it is drawn. Where an
 * entity is comes from the view (WorldView.positionAt, or the predictor for the own
 * character); the track only smooths the jumps a new state would make in what is on screen.
 *
 * When a new state (a turn the dead reckoning did not know of, a stop that came after a
 * stall, a path replaced, a correction) moves the entity's position at the time last drawn,
 * the difference is kept as an offset that fades out, so the entity glides onto its new
 * course instead of jumping. The fade takes BLEND_MS, or longer for a long way, so the glide
 * never adds more than BLEND_SPEED to the entity's own speed. A difference beyond the
 * track's reach, a JUMP state or a respawn snaps.
 */
import type { Placement } from '../../../shared/game/interpolation.js';
import type { Vec2 } from '../../../shared/game/movement.js';

/** The shortest fade of a correction. */
export const BLEND_MS = 150;
/** A glide moves the drawn entity at most this much faster than it walks (units per second). */
export const BLEND_SPEED = 30;
/** The own character: a correction further than this is a snap, not a glide. */
export const BLEND_MAX_UNITS = 48;
/**
 * Remote entities: a stall of up to a second and a half at a walk is glided out, not snapped
 * (the link lab's TCP loss stalls for a retransmission timeout and a round trip).
 */
export const REMOTE_BLEND_MAX_UNITS = 180;
/** A correction shorter than this (a fraction of a pixel) needs no glide. */
const BLEND_MIN_UNITS = 0.05;

export class VisualTrack {
  /** Page time of death, for the corpse fade; undefined while alive. */
  diedAt: number | undefined;
  /** What was drawn last and the time (server ms, or page ms for the own character) it was drawn for. */
  private drawn: { x: number; y: number; t: number } | undefined;
  private offsetX = 0;
  private offsetY = 0;
  private blendFrom = -Infinity;
  private blendMs = BLEND_MS;

  /** The time the entity was last drawn for, if it has been drawn. */
  get drawnAt(): number | undefined {
    return this.drawn?.t;
  }

  /** Whether a correction is still fading out at page time `localNow`. */
  blending(localNow: number): boolean {
    return this.weight(localNow) > 0;
  }

  /**
   * Where to draw the entity: `base` is where it is at time `t`; a blend under way adds what
   * is left of its offset. Remembers the result for the next retarget.
   */
  place(base: Placement, t: number, localNow: number): Placement {
    const k = this.weight(localNow);
    const p =
      k > 0 ? { x: base.x + this.offsetX * k, y: base.y + this.offsetY * k, facing: base.facing } : base;
    this.drawn = { x: p.x, y: p.y, t };
    return p;
  }

  /**
   * A new state changed where the entity is at the time last drawn: `to` is where it is now
   * said to be then. Blends from what was on screen to there, or snaps when told to, when the
   * change is beyond `reach`, or when nothing was drawn yet.
   */
  retarget(to: Vec2 | undefined, localNow: number, snap = false, reach = BLEND_MAX_UNITS): void {
    const d = this.drawn;
    if (snap || !d || !to) return this.snap();
    // What is still on screen of a blend under way is where the new one starts from.
    const dx = d.x - to.x;
    const dy = d.y - to.y;
    const distance = Math.hypot(dx, dy);
    if (!(distance >= BLEND_MIN_UNITS) || distance > reach) return this.snap();
    this.offsetX = dx;
    this.offsetY = dy;
    this.blendFrom = localNow;
    this.blendMs = Math.max(BLEND_MS, (distance * 1000) / BLEND_SPEED);
  }

  /** Drop any blend: the next frame draws exactly where the entity is. */
  snap(): void {
    this.offsetX = 0;
    this.offsetY = 0;
    this.blendFrom = -Infinity;
  }

  /** Share of the offset still drawn: 1 when the blend starts, 0 once it is over. */
  private weight(localNow: number): number {
    const f = (localNow - this.blendFrom) / this.blendMs;
    if (!(f < 1)) return 0;
    return f <= 0 ? 1 : 1 - f;
  }
}
