import { describe, expect, it } from 'vitest';
import { MAX_DEAD_RECKON_MS, type MotionState } from '../../shared/game/motion.js';
import { lerpAngle, pathMotion, sampleMotion } from '../../shared/game/interpolation.js';
import { positionAlongPath } from '../../shared/game/movement.js';
import { RenderClock } from '../../web-client/src/state/render-clock.js';
import { BLEND_MAX_UNITS, BLEND_MS, VisualTrack } from '../../web-client/src/state/visual-track.js';

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
    // A new state says that at the drawn time it was at 90, not 100.
    track.retarget({ x: 90, y: 0 }, 10);
    expect(track.place({ x: 90, y: 0, facing: 0 }, 1_000, 10).x).toBeCloseTo(100);
    expect(track.place({ x: 91, y: 0, facing: 0 }, 1_010, 10 + BLEND_MS / 2).x).toBeCloseTo(96);
    expect(track.blending(10 + BLEND_MS - 1)).toBe(true);
    expect(track.place({ x: 95, y: 0, facing: 0 }, 1_050, 10 + BLEND_MS).x).toBe(95);
    expect(track.blending(10 + BLEND_MS)).toBe(false);
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
});
