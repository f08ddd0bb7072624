import { describe, expect, it } from 'vitest';
import { MAX_DEAD_RECKON_MS, type MotionState } from '../../shared/game/motion.js';
import { lerpAngle, pathMotion, sampleMotion } from '../../shared/game/interpolation.js';
import { positionAlongPath } from '../../shared/game/movement.js';
import {
  DELAY_MARGIN_MS,
  HOLD_MS,
  MAX_DELAY_MS,
  MAX_RATE,
  MIN_DELAY_MS,
  RenderClock,
  percentile,
} from '../../web-client/src/state/render-clock.js';
import {
  BLEND_MAX_UNITS,
  BLEND_MS,
  BLEND_SPEED,
  REMOTE_BLEND_MAX_UNITS,
  VisualTrack,
} from '../../web-client/src/state/visual-track.js';

const walking = (t: number, x: number, y = 0, angle = 0, speed = 100): MotionState => ({
  t,
  x,
  y,
  moving: true,
  angle,
  speed,
});
const standing = (t: number, x: number, y = 0, angle = 0): MotionState => ({
  t,
  x,
  y,
  moving: false,
  angle,
  speed: 0,
});

describe('sampleMotion', () => {
  it('interpolates between two states and dead-reckons past the newest, held at MAX_DEAD_RECKON_MS', () => {
    const states = [walking(0, 0), walking(1000, 90)];
    expect(sampleMotion(states, 500)?.x).toBeCloseTo(45);
    expect(sampleMotion(states, 1500)?.x).toBeCloseTo(140);
    const held = 90 + (100 * MAX_DEAD_RECKON_MS) / 1000;
    expect(sampleMotion(states, 1000 + MAX_DEAD_RECKON_MS)?.x).toBeCloseTo(held);
    expect(sampleMotion(states, 1e9)?.x).toBeCloseTo(held);
  });

  it('never passes a stop: on the line up to it, on it after', () => {
    const states = [walking(0, 0), standing(800, 70)];
    let prev = -Infinity;
    for (let t = -100; t <= 5000; t += 7) {
      const x = sampleMotion(states, t)!.x;
      expect(x).toBeLessThanOrEqual(70);
      expect(x).toBeGreaterThanOrEqual(prev - 1e-9);
      prev = x;
    }
    expect(sampleMotion(states, 800)?.x).toBe(70);
  });

  it('turns the short way round between angles', () => {
    const a = lerpAngle(6.2, 0.1, 0.5);
    expect(Math.min(a, Math.PI * 2 - a)).toBeLessThan(0.2);
  });
});

describe('pathMotion', () => {
  it('is a state per waypoint reached, sampled as positionAlongPath walks it', () => {
    const from = { x: 100, y: 100 };
    const waypoints = [
      { x: 200, y: 100 },
      { x: 200, y: 300 },
    ];
    const states = pathMotion(from, waypoints, 50, 1000);
    expect(states.map((s) => [s.t, s.moving])).toEqual([
      [1000, true],
      [3000, true],
      [7000, false],
    ]);
    for (const t of [1000, 2000, 3000, 4500, 7000, 9000]) {
      const expected = positionAlongPath(from, waypoints, 50, t - 1000);
      const got = sampleMotion(states, t)!;
      expect(got.x).toBeCloseTo(expected.x);
      expect(got.y).toBeCloseTo(expected.y);
    }
    expect(sampleMotion(states, 4000)!.facing).toBeCloseTo(Math.PI / 2);
  });

  it('stands where it is for a path that goes nowhere (a mob stopped on the spot)', () => {
    expect(pathMotion({ x: 5, y: 6 }, [{ x: 5, y: 6 }], 70, 100, 2)).toEqual([standing(100, 5, 6, 2)]);
    expect(pathMotion({ x: 5, y: 6 }, [], 70, 100, 2)).toEqual([standing(100, 5, 6, 2)]);
  });
});

describe('VisualTrack', () => {
  it('draws exactly where the entity is when nothing was corrected', () => {
    const track = new VisualTrack();
    expect(track.place({ x: 10, y: 20, facing: 1 }, 5_000, 0)).toEqual({ x: 10, y: 20, facing: 1 });
    expect(track.drawnAt).toBe(5_000);
  });

  it('glides a small correction out over BLEND_MS, starting from what was on screen', () => {
    const track = new VisualTrack();
    track.place({ x: 100, y: 0, facing: 0 }, 1_000, 0);
    // A new state says that at the drawn time it was at 96, not 100.
    track.retarget({ x: 96, y: 0 }, 10);
    expect(track.place({ x: 96, y: 0, facing: 0 }, 1_000, 10).x).toBeCloseTo(100);
    expect(track.place({ x: 96, y: 0, facing: 0 }, 1_010, 10 + BLEND_MS / 2).x).toBeCloseTo(98);
    expect(track.blending(10 + BLEND_MS - 1)).toBe(true);
    expect(track.place({ x: 95, y: 0, facing: 0 }, 1_050, 10 + BLEND_MS).x).toBe(95);
    expect(track.blending(10 + BLEND_MS)).toBe(false);
  });

  it('takes longer over a long way, so a glide adds at most BLEND_SPEED to the walk', () => {
    const track = new VisualTrack();
    track.place({ x: 0, y: 0, facing: 0 }, 0, 0);
    // A stall ran it 90 units past where the stop that came late says it stood.
    track.retarget({ x: -90, y: 0 }, 0, false, REMOTE_BLEND_MAX_UNITS);
    const blendMs = (90 * 1000) / BLEND_SPEED;
    let prev = 0;
    for (let t = 16; t <= blendMs + 32; t += 16) {
      const x = track.place({ x: -90, y: 0, facing: 0 }, t, t).x;
      expect(prev - x).toBeLessThanOrEqual((BLEND_SPEED * 16) / 1000 + 1e-9);
      prev = x;
    }
    expect(prev).toBe(-90);
    // The own character's corrections snap beyond BLEND_MAX_UNITS.
    const own = new VisualTrack();
    own.place({ x: 0, y: 0, facing: 0 }, 0, 0);
    own.retarget({ x: -90, y: 0 }, 0);
    expect(own.place({ x: -90, y: 0, facing: 0 }, 1, 1).x).toBe(-90);
  });

  it('snaps a large correction, a jump, and anything before the first frame', () => {
    const far = new VisualTrack();
    far.place({ x: 0, y: 0, facing: 0 }, 0, 0);
    far.retarget({ x: BLEND_MAX_UNITS + 1, y: 0 }, 0);
    expect(far.place({ x: BLEND_MAX_UNITS + 1, y: 0, facing: 0 }, 0, 1).x).toBe(BLEND_MAX_UNITS + 1);

    const jump = new VisualTrack();
    jump.place({ x: 0, y: 0, facing: 0 }, 0, 0);
    jump.retarget({ x: 5, y: 0 }, 0, true);
    expect(jump.place({ x: 5, y: 0, facing: 0 }, 0, 1).x).toBe(5);

    const fresh = new VisualTrack();
    fresh.retarget({ x: 5, y: 0 }, 0);
    expect(fresh.place({ x: 5, y: 0, facing: 0 }, 0, 1).x).toBe(5);
  });
});

describe('RenderClock', () => {
  it('draws the interpolation delay behind the newest arrival', () => {
    const clock = new RenderClock(100);
    clock.observe(10_000, 500);
    expect(clock.serverNow(520)).toBe(10_020);
    expect(clock.renderTime(520)).toBe(9_920);
  });

  it('follows an earlier arrival at once and a later one only slowly', () => {
    const clock = new RenderClock(100);
    for (let i = 0; i < 5; i++) clock.observe(1000 + i * 50, i * 50);
    clock.observe(1300, 300 + 80); // 80 ms late
    expect(clock.serverNow(380)).toBeGreaterThan(1300 - 80 + 70);
    clock.observe(1350, 340); // early
    expect(clock.serverNow(340)).toBe(1350);
  });

  it('sets the delay to the arrival jitter (95th percentile of lateness) plus a margin', () => {
    // Recorded from a 200 ± 50 ms link: updates every 50 ms, each this much later than the fastest.
    const late = [0, 31, 12, 48, 7, 22, 40, 3, 45, 18, 27, 36, 9, 50, 14, 33, 1, 44, 25, 38];
    const clock = new RenderClock();
    late.forEach((l, i) => clock.observe(10_000 + i * 50, 200 + i * 50 + l));
    expect(clock.jitterMs).toBe(percentile(late, 0.95));
    expect(clock.jitterMs).toBe(48);
    expect(clock.delayMs).toBe(48 + DELAY_MARGIN_MS);
    // A clean link keeps the least delay; a fixed one (the lab's slider) wins.
    const clean = new RenderClock();
    for (let i = 0; i < 20; i++) clean.observe(10_000 + i * 50, 200 + i * 50);
    expect(clean.delayMs).toBe(MIN_DELAY_MS);
    const fixed = new RenderClock(250);
    late.forEach((l, i) => fixed.observe(10_000 + i * 50, 200 + i * 50 + l));
    expect(fixed.delayMs).toBe(250);
  });

  it('never sets the delay past MAX_DELAY_MS, however long the stalls', () => {
    const clock = new RenderClock();
    for (let i = 0; i < 40; i++) clock.observe(10_000 + i * 50, 200 + i * 50 + (i % 4 === 0 ? 1_500 : 0));
    expect(clock.jitterMs).toBeGreaterThan(MAX_DELAY_MS);
    expect(clock.delayMs).toBe(MAX_DELAY_MS);
  });

  it('holds the drawn time HOLD_MS past what was heard through a stall, then catches up without a jump', () => {
    // Updates every 50 ms; then a retransmission stall: nothing from 1 000 to 1 600 (local),
    // after which the held updates arrive at once and the stream goes on.
    const arrivals: [number, number][] = [];
    for (let s = 0; s <= 10_000; s += 50) arrivals.push([10_000 + s, s < 1_000 || s > 1_600 ? s : 1_600]);
    const clock = new RenderClock();
    let next = 0;
    let prev: number | undefined;
    for (let t = 0; t <= 10_000; t += 16) {
      while (next < arrivals.length && arrivals[next]![1] <= t) {
        const [server, local] = arrivals[next++]!;
        clock.observe(server, local);
      }
      const r = clock.renderTime(t);
      expect(r).toBeLessThanOrEqual(clock.heard! + HOLD_MS + 1e-9);
      if (prev !== undefined) {
        expect(r - prev).toBeGreaterThanOrEqual(0);
        expect(r - prev).toBeLessThanOrEqual(16 * MAX_RATE + 1e-9);
      }
      if (t === 1_504) {
        // Heard up to 10 950: held at 10 950 + HOLD_MS, not run on to the delay behind local time.
        expect(r).toBeCloseTo(10_950 + HOLD_MS);
        expect(clock.holding(t)).toBe(true);
      }
      prev = r;
    }
    // Caught up: the delay behind the newest arrival again.
    expect(clock.holding(10_000)).toBe(false);
    expect(clock.renderTime(10_000)).toBeCloseTo(clock.serverNow(10_000) - clock.delayMs, -1);
  });
});
