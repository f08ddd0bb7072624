import { describe, expect, it } from 'vitest';
import {
  LabWalk,
  RateCounter,
  SQUARE_WALK,
  ScriptedWalk,
  Series,
  StepMeter,
  scriptedDirection,
  FRAME_MS,
  PANE_SPAN_UNITS,
  fittedWalk,
  follow,
  walkCentre,
  walkPeriod,
  placeLabels,
  type LabelBox,
} from '../../web-client/src/state/lab.js';

describe('the lab scripted walk', () => {
  it('walks a square with a stop at each corner and ends where it began', () => {
    let x = 0;
    let y = 0;
    const seen = new Set<string>();
    for (let t = 0; t < walkPeriod(SQUARE_WALK); t += 10) {
      const d = scriptedDirection(SQUARE_WALK, t);
      seen.add(`${d.x},${d.y}`);
      x += d.x * 10;
      y += d.y * 10;
    }
    expect(seen).toEqual(new Set(['1,0', '0,0', '0,1', '-1,0', '0,-1']));
    expect(x).toBe(0);
    expect(y).toBe(0);
  });

  it('replays the same directions at the same times after a restart, and loops', () => {
    const walk = new ScriptedWalk();
    expect(walk.direction(5)).toEqual({ x: 0, y: 0 });
    walk.start(1_000);
    const first = [0, 1_600, 2_300, 4_000].map((t) => walk.direction(1_000 + t));
    walk.start(50_000);
    expect([0, 1_600, 2_300, 4_000].map((t) => walk.direction(50_000 + t))).toEqual(first);
    expect(walk.direction(50_000 + walkPeriod(SQUARE_WALK) + 100)).toEqual({ x: 1, y: 0 });
    walk.stop();
    expect(walk.running).toBe(false);
  });
});

describe("the lab's replayed walk", () => {
  it('fits the square where it first began, walks home on a replay (landing on it), then the square again without a stop', () => {
    const zone = { x: 0, y: 0, width: 1000, height: 1000, obstacles: [] };
    const walk = new LabWalk();
    const at = { x: 900, y: 500 };
    const speed = 120;
    const step = (now: number, dt: number) => {
      const d = walk.direction(now, dt, at, speed, zone);
      at.x += (d.x * speed * d.dtMs) / 1000;
      at.y += (d.y * speed * d.dtMs) / 1000;
      return d;
    };
    walk.replay(0);
    // East of home the zone ends 100 units on: the square goes west first.
    expect(step(10, 10)).toEqual({ x: -1, y: 0, dtMs: 10 });
    expect(walk.home).toEqual({ x: 900, y: 500 });
    for (let t = 20; t <= 990; t += 10) step(t, 10);
    step(995, 5);
    expect(at.x).toBeCloseTo(780.6, 6);
    walk.replay(1000);
    const home: { x: number; y: number; dtMs: number }[] = [];
    for (let t = 1010; t <= 2020; t += 10) home.push(step(t, 10));
    // Straight back east, the last frame cut to land on home, then west again at once.
    expect(home.slice(0, 100).every((d) => d.x === 1 && d.y === 0)).toBe(true);
    expect(home[99]!.dtMs).toBeLessThan(10);
    expect(home[100]).toEqual({ x: -1, y: 0, dtMs: 10 });
    expect(walk.script.elapsed(2020)).toBe(10);
  });
});

describe('lab figures', () => {
  it('keeps a plot series to its time span', () => {
    const s = new Series(1_000);
    for (let t = 0; t <= 3_000; t += 100) s.push(t, t / 100);
    expect(s.times[0]).toBe(2_000);
    expect(s.last).toBe(30);
    expect(s.max()).toBe(30);
  });

  it('counts corrections per second over a sliding second', () => {
    const c = new RateCounter();
    c.add(100);
    c.add(600, 2);
    expect(c.perSecond(900)).toBe(3);
    expect(c.perSecond(1_150)).toBe(2);
    expect(c.perSecond(1_700)).toBe(0);
  });

  it('measures frame steps per 60th of a second and counts those over its limit', () => {
    const m = new StepMeter(3);
    m.frame({ x: 0, y: 0 }, 0);
    m.frame({ x: 2, y: 0 }, FRAME_MS);
    m.frame({ x: 10, y: 0 }, 2 * FRAME_MS);
    // A frame three times as long that walked 6 units went 2 units per 60th of a second.
    m.frame({ x: 16, y: 0 }, 5 * FRAME_MS);
    m.frame(undefined, 6 * FRAME_MS);
    // Out of view and back: no step across the gap.
    m.frame({ x: 100, y: 0 }, 7 * FRAME_MS);
    expect(m).toMatchObject({ frames: 3, over: 1, max: 8, maxRaw: 8 });
  });
});

describe('where the lab panes look', () => {
  it("centres on the walk's square and moves only when the walker nears an edge", () => {
    expect(walkCentre(SQUARE_WALK, 120)).toEqual({ x: 90, y: 90 });
    const c = { x: 100, y: 100 };
    expect(follow(c, { x: 200, y: 30 })).toBe(c);
    expect(follow(c, { x: 100 + PANE_SPAN_UNITS, y: 100 })).toEqual({ x: 100 + PANE_SPAN_UNITS, y: 100 });
    expect(follow(undefined, { x: 5, y: 6 })).toEqual({ x: 5, y: 6 });
  });
});

describe('the scripted walk fitted to the walls', () => {
  const zone = { width: 1000, height: 1000 };

  it('walks the square as given when nothing is in the way', () => {
    expect(fittedWalk(SQUARE_WALK, { x: 300, y: 300 }, 120, zone, [])).toEqual(SQUARE_WALK);
  });

  it('mirrors it away from a wall east of the start and from the zone edge south of it', () => {
    const wall = { x: 420, y: 0, w: 20, h: 1000 };
    const walk = fittedWalk(SQUARE_WALK, { x: 300, y: 900 }, 120, zone, [wall]);
    expect(walk[0]).toMatchObject({ x: -1, y: 0 });
    expect(walk[2]).toMatchObject({ x: 0, y: -1 });
    expect(walk.map((l) => l.ms)).toEqual(SQUARE_WALK.map((l) => l.ms));
  });
});

describe('labels on a lab view', () => {
  const overlap = (a: LabelBox, b: LabelBox) =>
    Math.abs(a.x - b.x) * 2 < a.w + b.w && a.y - a.h < b.y && b.y - b.h < a.y;

  it('keeps a lone label where it was asked for', () => {
    expect(placeLabels([{ x: 10, y: 20, w: 40, h: 13 }])).toEqual([{ x: 10, y: 20 }]);
  });

  it('moves corrections at one spot apart by whole rows so that none covers another', () => {
    const boxes = Array.from({ length: 5 }, (_, i) => ({ x: 100 + i, y: 50, w: 60, h: 13 }));
    const at = placeLabels(boxes);
    const placed = at.map((p, i) => ({ ...boxes[i]!, ...p! }));
    expect(at.every((p) => p !== undefined)).toBe(true);
    for (let i = 0; i < placed.length; i++)
      for (let j = i + 1; j < placed.length; j++) expect(overlap(placed[i]!, placed[j]!)).toBe(false);
    // The first keeps its place; the next goes up a row.
    expect(at[0]).toEqual({ x: 100, y: 50 });
    expect(at[1]).toEqual({ x: 101, y: 37 });
  });

  it('leaves out a label with no free row within reach, and leaves apart ones alone', () => {
    const crowd = Array.from({ length: 12 }, () => ({ x: 0, y: 0, w: 50, h: 10 }));
    const at = placeLabels(crowd, 2);
    expect(at.filter((p) => p !== undefined)).toHaveLength(5);
    expect(
      placeLabels([
        { x: 0, y: 0, w: 50, h: 10 },
        { x: 60, y: 0, w: 50, h: 10 },
      ]),
    ).toEqual([
      { x: 0, y: 0 },
      { x: 60, y: 0 },
    ]);
  });
});
