/**
 * Where the camera looks (no Pixi here). The HUD's panels sit at the screen's edges; the part
 * of the screen none of them covers is the clear area, and the camera keeps the own character
 * at its centre. With a target, it slides (and, when the two are far apart on a small screen,
 * zooms out a little) so that the target is in the clear area too: a frame or a chat box is
 * never drawn over the fight.
 */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Point {
  x: number;
  y: number;
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/**
 * The largest rectangle of the screen that no box covers (ties: the one nearer the screen's
 * centre). Its edges lie on the screen's or on the boxes' edges, so trying those is enough:
 * a dozen boxes make a few ten thousand candidates, computed when the HUD moves.
 */
export function clearArea(screen: { w: number; h: number }, boxes: readonly Rect[]): Rect {
  const inside = boxes
    .map((b) => {
      const x = Math.max(0, b.x);
      const y = Math.max(0, b.y);
      return { x, y, w: Math.min(screen.w, b.x + b.w) - x, h: Math.min(screen.h, b.y + b.h) - y };
    })
    .filter((b) => b.w > 0 && b.h > 0);
  const lefts = [0, ...inside.map((b) => b.x + b.w)];
  const rights = [screen.w, ...inside.map((b) => b.x)];
  const tops = [0, ...inside.map((b) => b.y + b.h)];
  const bottoms = [screen.h, ...inside.map((b) => b.y)];
  let best: Rect = { x: 0, y: 0, w: 0, h: 0 };
  let bestArea = -1;
  let bestOff = Infinity;
  for (const l of lefts) {
    for (const r of rights) {
      if (r <= l) continue;
      for (const t of tops) {
        for (const b of bottoms) {
          if (b <= t) continue;
          const c = { x: l, y: t, w: r - l, h: b - t };
          const area = c.w * c.h;
          if (area < bestArea) continue;
          if (inside.some((box) => overlaps(c, box))) continue;
          const off = Math.hypot(l + c.w / 2 - screen.w / 2, t + c.h / 2 - screen.h / 2);
          if (area > bestArea || off < bestOff) {
            best = c;
            bestArea = area;
            bestOff = off;
          }
        }
      }
    }
  }
  return best;
}

/** Room a body needs around its centre to be seen whole: its health bar and name above it. */
export interface BodyRoom {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface CameraGoal {
  /** The world point drawn at the clear area's centre. */
  x: number;
  y: number;
  zoom: number;
}

export const MIN_ZOOM = 0.5;

/**
 * The camera that shows `self` in the clear area, as near its centre as it can while `target`
 * (if any) is in the clear area too, at zoom 1 unless the two cannot both fit (then no less than
 * MIN_ZOOM). A target too far for that is left out: the own character always stays in.
 */
export function frameCamera(clear: Rect, room: BodyRoom, self: Point, target?: Point): CameraGoal {
  // Where a body's centre may be drawn, in screen pixels.
  const lo = { x: clear.x + room.left, y: clear.y + room.top };
  const hi = { x: clear.x + clear.w - room.right, y: clear.y + clear.h - room.bottom };
  const centre = { x: clear.x + clear.w / 2, y: clear.y + clear.h / 2 };
  if (!target || hi.x <= lo.x || hi.y <= lo.y) return { x: self.x, y: self.y, zoom: 1 };
  const span = (axis: 'x' | 'y') => Math.abs(target[axis] - self[axis]);
  const fit = Math.min(
    span('x') > 0 ? (hi.x - lo.x) / span('x') : Infinity,
    span('y') > 0 ? (hi.y - lo.y) / span('y') : Infinity,
  );
  const zoom = Math.max(MIN_ZOOM, Math.min(1, fit));
  // Per axis, the camera positions (world) that keep a point's screen position in [lo, hi]:
  // screen = (p - cam) * zoom + centre.
  const axis = (a: 'x' | 'y'): number => {
    const keep = (p: number) => [p - (hi[a] - centre[a]) / zoom, p - (lo[a] - centre[a]) / zoom] as const;
    const [s0, s1] = keep(self[a]);
    const [t0, t1] = keep(target[a]);
    const from = Math.max(s0, t0);
    const to = Math.min(s1, t1);
    // Both fit: as near the own character as that allows; else the own character's range, nearest the target.
    const [a0, a1] = from <= to ? [from, to] : [s0, s1];
    const want = from <= to ? self[a] : target[a];
    return Math.min(a1, Math.max(a0, want));
  };
  return { x: axis('x'), y: axis('y'), zoom };
}
