/**
 * What the page adds to an entity beyond the SDK's world view: how it is drawn. Where an
 * entity is comes from the view (WorldView.positionAt, or the predictor for the own
 * character); the track only smooths the jumps a new state would make in what is on screen.
 *
 * When a new state (a turn the dead reckoning did not know of, a path replaced, a correction)
 * moves the entity's position at the time last drawn by a little, the difference is kept as
 * an offset that fades out over BLEND_MS, so the entity glides onto its new course instead
 * of jumping. A large difference, a JUMP state or a respawn snaps. A glide never carries an
 * entity past the stop it is walking to: an explicit stop stays exact.
 */
import type { Placement } from '../../../shared/game/interpolation.js';
import type { Vec2 } from '../../../shared/game/movement.js';

/** How long a small correction takes to fade out. */
export const BLEND_MS = 150;
/** A correction further than this is a snap, not a glide. */
export const BLEND_MAX_UNITS = 48;
/** A correction shorter than this (a fraction of a pixel) needs no glide. */
const BLEND_MIN_UNITS = 0.05;

/** A stop the entity walks to: where, and the unit direction it comes from. */
export interface Stop {
  x: number;
  y: number;
  dx: number;
  dy: number;
}

export class VisualTrack {
  /** Page time of death, for the corpse fade; undefined while alive. */
  diedAt: number | undefined;
  /** What was drawn last and the time (server ms, or page ms for the own character) it was drawn for. */
  private drawn: { x: number; y: number; t: number } | undefined;
  private offsetX = 0;
  private offsetY = 0;
  private blendFrom = -Infinity;

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
   * is left of its offset, but never past `stop`. Remembers the result for the next retarget.
   */
  place(base: Placement, t: number, localNow: number, stop?: Stop): Placement {
    const k = this.weight(localNow);
    let p = base;
    if (k > 0) {
      let x = base.x + this.offsetX * k;
      let y = base.y + this.offsetY * k;
      const over = stop ? (x - stop.x) * stop.dx + (y - stop.y) * stop.dy : 0;
      if (stop && over > 0) {
        x -= over * stop.dx;
        y -= over * stop.dy;
      }
      p = { x, y, facing: base.facing };
    }
    this.drawn = { x: p.x, y: p.y, t };
    return p;
  }

  /**
   * A new state changed where the entity is at the time last drawn: `to` is where it is now
   * said to be then. Blends from what was on screen to there, or snaps when told to, when the
   * change is large, or when nothing was drawn yet.
   */
  retarget(to: Vec2 | undefined, localNow: number, snap = false): void {
    const d = this.drawn;
    if (snap || !d || !to) return this.snap();
    const dx = d.x - to.x;
    const dy = d.y - to.y;
    const distance = Math.hypot(dx, dy);
    if (!(distance >= BLEND_MIN_UNITS) || distance > BLEND_MAX_UNITS) return this.snap();
    this.offsetX = dx;
    this.offsetY = dy;
    this.blendFrom = localNow;
  }

  /** Drop any blend: the next frame draws exactly where the entity is. */
  snap(): void {
    this.offsetX = 0;
    this.offsetY = 0;
    this.blendFrom = -Infinity;
  }

  /** Share of the offset still drawn: 1 when the blend starts, 0 once BLEND_MS have passed. */
  private weight(localNow: number): number {
    const f = (localNow - this.blendFrom) / BLEND_MS;
    if (!(f < 1)) return 0;
    return f <= 0 ? 1 : 1 - f;
  }
}
