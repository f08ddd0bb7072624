/**
 * Where bots walk: a coarse grid over the zone for getting around walls, the area bots are
 * spread over, and the straight-line checks the server makes on every MoveInput (so a bot
 * never asks for a move the server would correct).
 *
 * Getting home: a bot walks straight at its home point when the line is clear, else down a
 * breadth-first distance field toward the home's anchor (a lattice point near it). Fields are
 * computed once per anchor and shared by every bot of the process, so thousands of bots cost
 * a few hundred floods of the grid, not a path search each.
 */
import {
  blocked,
  ENTITY_RADIUS,
  insideZone,
  segmentBlocked,
  type Rect,
  type Vec2,
} from '../../shared/game/movement.js';

export interface Area {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Ground in the world plane: a zone (or a zone and those beside it) at (x, y). */
export interface ZoneShape {
  x?: number;
  y?: number;
  width: number;
  height: number;
  obstacles: readonly Rect[];
}

const CELL = 16;
/** Clearance a free cell needs around its centre (half a cell's diagonal plus a margin). */
const CELL_CLEARANCE = ENTITY_RADIUS + 7;
const ANCHOR_SPACING = 96;
const UNREACHED = 0xffff;

export class NavGrid {
  readonly cols: number;
  readonly rows: number;
  /** 1 where a bot may stand anywhere in the cell. */
  readonly free: Uint8Array;
  private readonly fields = new Map<number, Uint16Array>();
  /** The ground's corner: cells count from here. */
  private readonly x0: number;
  private readonly y0: number;

  constructor(readonly zone: ZoneShape) {
    this.x0 = zone.x ?? 0;
    this.y0 = zone.y ?? 0;
    this.cols = Math.ceil(zone.width / CELL);
    this.rows = Math.ceil(zone.height / CELL);
    this.free = new Uint8Array(this.cols * this.rows);
    for (let cy = 0; cy < this.rows; cy++) {
      for (let cx = 0; cx < this.cols; cx++) {
        const c = this.center(cy * this.cols + cx);
        const ok = insideZone(c, zone, CELL_CLEARANCE) && !blocked(c, zone.obstacles, CELL_CLEARANCE);
        this.free[cy * this.cols + cx] = ok ? 1 : 0;
      }
    }
  }

  cellOf(p: Vec2): number {
    const cx = Math.min(this.cols - 1, Math.max(0, Math.floor((p.x - this.x0) / CELL)));
    const cy = Math.min(this.rows - 1, Math.max(0, Math.floor((p.y - this.y0) / CELL)));
    return cy * this.cols + cx;
  }

  center(cell: number): Vec2 {
    return {
      x: this.x0 + ((cell % this.cols) + 0.5) * CELL,
      y: this.y0 + (Math.floor(cell / this.cols) + 0.5) * CELL,
    };
  }

  /** Whether a bot may stand at p (the server's own check). */
  standable(p: Vec2): boolean {
    return insideZone(p, this.zone) && !blocked(p, this.zone.obstacles);
  }

  /** Whether the server accepts a move from a to b (no wall at b, none crossed on the way). */
  canMove(a: Vec2, b: Vec2): boolean {
    return this.standable(b) && !segmentBlocked(a, b, this.zone.obstacles, 0);
  }

  /** Whether a bot can walk straight from a to b without brushing a wall. */
  clearLine(a: Vec2, b: Vec2): boolean {
    return this.standable(b) && !segmentBlocked(a, b, this.zone.obstacles, ENTITY_RADIUS);
  }

  /** The free lattice anchor nearest p (the goal of a shared distance field). */
  anchorFor(p: Vec2): number {
    const ax = this.x0 + Math.round((p.x - this.x0) / ANCHOR_SPACING) * ANCHOR_SPACING;
    const ay = this.y0 + Math.round((p.y - this.y0) / ANCHOR_SPACING) * ANCHOR_SPACING;
    // The anchor point itself may sit in a wall: take the nearest free cell around it.
    const start = this.cellOf({ x: ax, y: ay });
    if (this.free[start]) return start;
    let best = -1;
    let bestD = Infinity;
    const c0 = start % this.cols;
    const r0 = Math.floor(start / this.cols);
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const cx = c0 + dx;
        const cy = r0 + dy;
        if (cx < 0 || cy < 0 || cx >= this.cols || cy >= this.rows) continue;
        const cell = cy * this.cols + cx;
        const d = dx * dx + dy * dy;
        if (this.free[cell] && d < bestD) {
          bestD = d;
          best = cell;
        }
      }
    }
    return best >= 0 ? best : this.cellOf(p);
  }

  /** Steps (8-connected) from every cell to `goal`; UNREACHED where no way leads. */
  field(goal: number): Uint16Array {
    let f = this.fields.get(goal);
    if (f) return f;
    f = new Uint16Array(this.free.length).fill(UNREACHED);
    const queue = new Int32Array(this.free.length);
    let head = 0;
    let tail = 0;
    f[goal] = 0;
    queue[tail++] = goal;
    const cols = this.cols;
    while (head < tail) {
      const c = queue[head++]!;
      const d = f[c]! + 1;
      const cx = c % cols;
      const cy = (c - cx) / cols;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          if (dx === 0 && dy === 0) continue;
          const nx = cx + dx;
          const ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= cols || ny >= this.rows) continue;
          const n = ny * cols + nx;
          if (!this.free[n] || f[n] !== UNREACHED) continue;
          // No corner cutting: a diagonal step needs both sides free.
          if (dx !== 0 && dy !== 0 && (!this.free[cy * cols + nx] || !this.free[ny * cols + cx])) continue;
          f[n] = d;
          queue[tail++] = n;
        }
      }
    }
    this.fields.set(goal, f);
    return f;
  }

  /** The centre of the neighbouring cell one step nearer `goal`, or undefined when stuck. */
  nextStep(from: Vec2, goal: number): Vec2 | undefined {
    const f = this.field(goal);
    const c = this.cellOf(from);
    const cols = this.cols;
    const cx = c % cols;
    const cy = (c - cx) / cols;
    let best = -1;
    let bestD = f[c]! === UNREACHED ? UNREACHED : f[c]!;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const nx = cx + dx;
        const ny = cy + dy;
        if ((dx === 0 && dy === 0) || nx < 0 || ny < 0 || nx >= cols || ny >= this.rows) continue;
        const n = ny * cols + nx;
        if (f[n]! < bestD) {
          bestD = f[n]!;
          best = n;
        }
      }
    }
    if (best < 0) return f[c] === 0 ? this.center(c) : undefined;
    return this.center(best);
  }

  /**
   * The next waypoint toward `goal` down the distance field: the furthest of the next
   * `lookahead` cell steps that `from` reaches in a clear straight line (a walk with a few
   * turns, not one every cell), else the next step when the server accepts a move straight
   * to it, else undefined (stuck).
   */
  waypointToward(from: Vec2, goal: number, lookahead = 8): Vec2 | undefined {
    const f = this.field(goal);
    let best: Vec2 | undefined;
    let at = from;
    for (let i = 0; i < lookahead; i++) {
      const next = this.nextStep(at, goal);
      if (!next) break;
      if (this.clearLine(from, next)) best = next;
      else if (best) break;
      if (f[this.cellOf(next)] === 0) break;
      at = next;
    }
    if (best) return best;
    const first = this.nextStep(from, goal);
    return first && this.canMove(from, first) ? first : undefined;
  }

  /** A random standable point in `area` whose anchor reaches it in a straight line. */
  randomHome(area: Area, rng: () => number): { point: Vec2; anchor: number } {
    for (let attempt = 0; attempt < 40; attempt++) {
      const p = { x: area.x + rng() * area.w, y: area.y + rng() * area.h };
      if (!this.free[this.cellOf(p)]) continue;
      const anchor = this.anchorFor(p);
      if (this.clearLine(this.center(anchor), p)) return { point: p, anchor };
    }
    const anchor = this.anchorFor({ x: area.x + area.w / 2, y: area.y + area.h / 2 });
    return { point: this.center(anchor), anchor };
  }

  /** Share of the area's cells a bot can stand in. */
  freeShare(area: Area): number {
    let free = 0;
    let all = 0;
    for (let y = area.y + CELL / 2; y < area.y + area.h; y += CELL) {
      for (let x = area.x + CELL / 2; x < area.x + area.w; x += CELL) {
        all++;
        free += this.free[this.cellOf({ x, y })]!;
      }
    }
    return all === 0 ? 0 : free / all;
  }
}

/** Clamps an area to the zone (keeping a margin for the entity radius). */
export function clampArea(a: Area, zone: ZoneShape): Area {
  const m = ENTITY_RADIUS + 2;
  const x0 = zone.x ?? 0;
  const y0 = zone.y ?? 0;
  const x = Math.max(x0 + m, a.x);
  const y = Math.max(y0 + m, a.y);
  return {
    x,
    y,
    w: Math.max(1, Math.min(a.x + a.w, x0 + zone.width - m) - x),
    h: Math.max(1, Math.min(a.y + a.h, y0 + zone.height - m) - y),
  };
}

/**
 * The square, centred on `center`, whose side gives `count` bots about `playersInView`
 * others within `interestRadius` when spread evenly (capped at the zone). `dense`: one
 * square inside a single interest radius, so everyone sees everyone.
 */
export function planArea(options: {
  zone: ZoneShape;
  count: number;
  interestRadius: number;
  playersInView: number;
  center?: Vec2;
  dense?: boolean;
}): Area {
  const { zone, count, interestRadius: r } = options;
  const center = options.center ?? { x: (zone.x ?? 0) + zone.width / 2, y: (zone.y ?? 0) + zone.height / 2 };
  // Any two points of a square of side r/√2 are within r of each other.
  const side = options.dense
    ? (r / Math.SQRT2) * 0.95
    : Math.sqrt((Math.max(1, count - 1) * Math.PI * r * r) / Math.max(1, options.playersInView));
  return clampArea({ x: center.x - side / 2, y: center.y - side / 2, w: side, h: side }, zone);
}

/** For `--dense`: the centre, of those on a coarse lattice, whose square is most open. */
export function openestCenter(grid: NavGrid, side: number): Vec2 {
  const x0 = grid.zone.x ?? 0;
  const y0 = grid.zone.y ?? 0;
  let best = { x: x0 + grid.zone.width / 2, y: y0 + grid.zone.height / 2 };
  let bestShare = -1;
  for (let y = y0 + side; y <= y0 + grid.zone.height - side; y += 50) {
    for (let x = x0 + side; x <= x0 + grid.zone.width - side; x += 50) {
      const share = grid.freeShare({ x: x - side / 2, y: y - side / 2, w: side, h: side });
      if (share > bestShare + 1e-9) {
        bestShare = share;
        best = { x, y };
      }
    }
  }
  return best;
}
