/**
 * The netcode lab's plain data (no DOM, no Pixi): the scripted walk that drives a player the
 * same way every time, the series behind the live plots, and the meter that counts how far
 * a watched entity moves on screen from one frame to the next.
 */
import { insideZone, segmentBlocked, type Rect, type ZoneBounds } from '../../../shared/game/movement.js';

export interface Direction {
  x: number;
  y: number;
}

/** One leg of a scripted walk: hold a direction (or none) for `ms`. */
export interface Leg {
  x: number;
  y: number;
  ms: number;
}

/**
 * The lab's walk: a square, 1.5 s a side at walking speed (180 units), with a 0.7 s stop
 * at each corner, so starts, stops and turns all show. It ends where it began.
 */
export const SQUARE_WALK: readonly Leg[] = [
  { x: 1, y: 0, ms: 1500 },
  { x: 0, y: 0, ms: 700 },
  { x: 0, y: 1, ms: 1500 },
  { x: 0, y: 0, ms: 700 },
  { x: -1, y: 0, ms: 1500 },
  { x: 0, y: 0, ms: 700 },
  { x: 0, y: -1, ms: 1500 },
  { x: 0, y: 0, ms: 700 },
];

export function walkPeriod(legs: readonly Leg[]): number {
  return legs.reduce((sum, l) => sum + l.ms, 0);
}

/** The direction the walk holds `elapsedMs` after it started (it loops). */
export function scriptedDirection(legs: readonly Leg[], elapsedMs: number): Direction {
  const period = walkPeriod(legs);
  if (period <= 0 || elapsedMs < 0) return { x: 0, y: 0 };
  let t = elapsedMs % period;
  for (const leg of legs) {
    if (t < leg.ms) return { x: leg.x, y: leg.y };
    t -= leg.ms;
  }
  return { x: 0, y: 0 };
}

/**
 * A scripted driver: started at a page time, it gives the direction for any later frame.
 * Restarting replays the walk from its first leg.
 */
export class ScriptedWalk {
  private startedAt: number | undefined;

  constructor(public legs: readonly Leg[] = SQUARE_WALK) {}

  get running(): boolean {
    return this.startedAt !== undefined;
  }

  start(localNow: number): void {
    this.startedAt = localNow;
  }

  stop(): void {
    this.startedAt = undefined;
  }

  /** Ms since the walk began, or undefined when it is not running. */
  elapsed(localNow: number): number | undefined {
    return this.startedAt === undefined ? undefined : localNow - this.startedAt;
  }

  direction(localNow: number): Direction {
    const e = this.elapsed(localNow);
    return e === undefined ? { x: 0, y: 0 } : scriptedDirection(this.legs, e);
  }
}

/**
 * The lab's driver: the square walk, fitted around where it first began (fittedWalk), and
 * replayed from there. A replay walks back to that spot, straight at walking speed (the last
 * frame cut to land on it), then starts the walk again from its first leg without a stop,
 * so the same square is walked in the same place under whatever settings.
 */
export class LabWalk {
  readonly script: ScriptedWalk;
  private spot: { x: number; y: number } | undefined;
  private returning = false;

  constructor(readonly legs: readonly Leg[] = SQUARE_WALK) {
    this.script = new ScriptedWalk(legs);
  }

  /** Where the walk began the first time (it is replayed from there). */
  get home(): { x: number; y: number } | undefined {
    return this.spot;
  }

  /** Starts the walk, or after the first start, walks back home and starts it again. */
  replay(localNow: number): void {
    if (this.spot) {
      this.script.stop();
      this.returning = true;
    } else this.script.start(localNow);
  }

  /**
   * This frame's direction for a walker at `at` walking `speed` units/s, and how long it walks
   * it: `dtMs`, or less to land on home. The first frame fixes home and fits the walk there.
   */
  direction(
    localNow: number,
    dtMs: number,
    at: { x: number; y: number },
    speed: number,
    zone?: ZoneBounds & { obstacles: readonly Rect[] },
  ): Direction & { dtMs: number } {
    if (!this.spot) {
      this.spot = { x: at.x, y: at.y };
      // The square turned so that it fits between the walls around where it begins.
      if (zone) this.script.legs = fittedWalk(this.legs, this.spot, speed, zone, zone.obstacles);
    }
    if (this.returning) {
      const dx = this.spot.x - at.x;
      const dy = this.spot.y - at.y;
      const d = Math.hypot(dx, dy);
      if (d > 0.5) {
        const ms = Math.min(dtMs, (d / speed) * 1000);
        return { x: dx / d, y: dy / d, dtMs: ms };
      }
      this.returning = false;
      this.script.start(localNow);
    }
    if (!this.script.running) this.script.start(localNow);
    return { ...this.script.direction(localNow), dtMs };
  }
}

/** Samples of one figure over the last `spanMs` (page time), for a plot. */
export class Series {
  readonly times: number[] = [];
  readonly values: number[] = [];

  constructor(readonly spanMs = 20_000) {}

  push(at: number, value: number): void {
    this.times.push(at);
    this.values.push(value);
    let drop = 0;
    while (drop < this.times.length && (this.times[drop] as number) < at - this.spanMs) drop++;
    if (drop > 0) {
      this.times.splice(0, drop);
      this.values.splice(0, drop);
    }
  }

  get last(): number | undefined {
    return this.values[this.values.length - 1];
  }

  /** Largest value kept (0 when empty). */
  max(): number {
    let m = 0;
    for (const v of this.values) if (v > m) m = v;
    return m;
  }
}

/** Events (corrections) per second over a sliding window. */
export class RateCounter {
  private readonly at: number[] = [];

  constructor(private readonly windowMs = 1000) {}

  add(localNow: number, n = 1): void {
    for (let i = 0; i < n; i++) this.at.push(localNow);
  }

  perSecond(localNow: number): number {
    while (this.at.length > 0 && (this.at[0] as number) <= localNow - this.windowMs) this.at.shift();
    return (this.at.length * 1000) / this.windowMs;
  }
}

/** 60 frames a second: the frame steps are measured against it. */
export const FRAME_MS = 1000 / 60;

/**
 * How far a watched entity moves on screen between frames. A frame that took longer than
 * FRAME_MS (a busy machine) is judged by the distance per FRAME_MS it covered, so a slow
 * frame is not taken for a jump, while a jump is one whatever the frame rate.
 */
export class StepMeter {
  /** Steps longer than this (per FRAME_MS) count as jumps. */
  constructor(readonly limit = 3) {}
  frames = 0;
  over = 0;
  /** The longest step per FRAME_MS. */
  max = 0;
  /** The longest step between two frames, however long the frame. */
  maxRaw = 0;
  private last: { x: number; y: number; at: number } | undefined;

  /** The entity was drawn at (x, y) at page time `at`; undefined when it is not in view. */
  frame(p: { x: number; y: number } | undefined, at: number): number | undefined {
    if (!p) {
      this.last = undefined;
      return undefined;
    }
    const prev = this.last;
    this.last = { x: p.x, y: p.y, at };
    if (!prev || !(at > prev.at)) return undefined;
    const raw = Math.hypot(p.x - prev.x, p.y - prev.y);
    const step = (raw * FRAME_MS) / Math.max(FRAME_MS, at - prev.at);
    this.frames++;
    if (step > this.limit) this.over++;
    if (step > this.max) this.max = step;
    if (raw > this.maxRaw) this.maxRaw = raw;
    return step;
  }

  reset(): void {
    this.frames = 0;
    this.over = 0;
    this.max = 0;
    this.maxRaw = 0;
    this.last = undefined;
  }
}

/** Who an entity is to the lab: its two players keep their colours in every pane. */
export type Role = 'A' | 'B' | 'player' | 'mob';

export interface SceneEntity {
  id: number;
  kind: 'player' | 'mob';
  name: string;
  x: number;
  y: number;
  facing: number;
  alive: boolean;
  role: Role;
}

/** A correction as drawn: where the character was, where the server put it, how far. */
export interface SceneCorrection {
  x: number;
  y: number;
  fromX: number;
  fromY: number;
  distance: number;
  reason: string;
  /** 0 when it happened, 1 when it has faded out. */
  age: number;
}

/** A drawn error over the mark's limit: where the entity was drawn and where it truly was. */
export interface SceneErrorMark {
  x: number;
  y: number;
  trueX: number;
  trueY: number;
  error: number;
  /** 0 when drawn, 1 when it has faded out. */
  age: number;
}

/** What one lab pane shows, in world units; the renderer only draws it. */
export interface PaneScene {
  zone:
    | {
        x: number;
        y: number;
        width: number;
        height: number;
        obstacles: readonly { x: number; y: number; w: number; h: number }[];
      }
    | undefined;
  /** The world point at the pane's centre. */
  center: { x: number; y: number };
  entities: SceneEntity[];
  /** The own character's server-confirmed position, and where the character is drawn. */
  ghost: { x: number; y: number; selfX: number; selfY: number } | undefined;
  corrections: SceneCorrection[];
  /** Where the pane drew an entity more than 2 units from where the server had it. */
  errors: SceneErrorMark[];
  /** Where the watched entity was drawn lately, oldest first: gaps between dots are jumps. */
  trail: { x: number; y: number }[];
  trailRole: Role;
  /** A line of text over the view (the link held, no feed). */
  note: string | undefined;
}

/** Units across the smaller side of a pane: the scripted square (180 a side) and some room. */
export const PANE_SPAN_UNITS = 420;

/**
 * Where the panes look: a fixed point, so the motion is seen against still ground; it moves
 * to `focus` only when that nears a pane's edge (beyond `reach` units from it).
 */
export function follow(
  center: { x: number; y: number } | undefined,
  focus: { x: number; y: number },
  reach = PANE_SPAN_UNITS * 0.4,
): { x: number; y: number } {
  if (!center || Math.abs(focus.x - center.x) > reach || Math.abs(focus.y - center.y) > reach) {
    return { x: focus.x, y: focus.y };
  }
  return center;
}

/** The middle of the box a walk covers at `speed` (units per second), from where it starts. */
export function walkCentre(legs: readonly Leg[], speed: number): { x: number; y: number } {
  let x = 0;
  let y = 0;
  let minX = 0;
  let maxX = 0;
  let minY = 0;
  let maxY = 0;
  for (const leg of legs) {
    const len = Math.hypot(leg.x, leg.y);
    if (len === 0) continue;
    x += (leg.x / len) * speed * (leg.ms / 1000);
    y += (leg.y / len) * speed * (leg.ms / 1000);
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  return { x: (minX + maxX) / 2, y: (minY + maxY) / 2 };
}

/**
 * The square as walked from `home`, turned or mirrored (east then south, east then north,
 * west then south, west then north) so that no leg runs into a wall or out of the zone,
 * with a body's width to spare; the first that fits, or the walk as given when none does.
 */
export function fittedWalk(
  legs: readonly Leg[],
  home: { x: number; y: number },
  speed: number,
  zone: ZoneBounds,
  obstacles: readonly Rect[],
): Leg[] {
  for (const [fx, fy] of [
    [1, 1],
    [1, -1],
    [-1, 1],
    [-1, -1],
  ] as const) {
    // + 0 turns -0 into 0.
    const walk = legs.map((l) => ({ x: l.x * fx + 0, y: l.y * fy + 0, ms: l.ms }));
    let at = home;
    let clear = true;
    for (const leg of walk) {
      const len = Math.hypot(leg.x, leg.y);
      if (len === 0) continue;
      const next = {
        x: at.x + (leg.x / len) * speed * (leg.ms / 1000),
        y: at.y + (leg.y / len) * speed * (leg.ms / 1000),
      };
      if (!insideZone(next, zone, 16) || segmentBlocked(at, next, obstacles, 16)) {
        clear = false;
        break;
      }
      at = next;
    }
    if (clear) return walk;
  }
  return [...legs];
}

/** A label on a view, in screen pixels: centred on x, its bottom edge at y. */
export interface LabelBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Where labels go so that none covers another: each in turn (the first ones keep their
 * place) at its own spot, else moved up or down by whole rows, nearest first, to the first
 * free place within `rows` rows; undefined when there is none (it is not drawn).
 */
export function placeLabels(boxes: readonly LabelBox[], rows = 4): ({ x: number; y: number } | undefined)[] {
  const placed: LabelBox[] = [];
  const overlaps = (a: LabelBox, b: LabelBox) =>
    Math.abs(a.x - b.x) * 2 < a.w + b.w && a.y - a.h < b.y && b.y - b.h < a.y;
  return boxes.map((box) => {
    for (let i = 0; i <= rows * 2; i++) {
      // 0, up 1, down 1, up 2, down 2, ...
      const shift = i === 0 ? 0 : (i % 2 === 1 ? -1 : 1) * Math.ceil(i / 2) * box.h;
      const at = { ...box, y: box.y + shift };
      if (placed.some((p) => overlaps(p, at))) continue;
      placed.push(at);
      return { x: at.x, y: at.y };
    }
    return undefined;
  });
}
