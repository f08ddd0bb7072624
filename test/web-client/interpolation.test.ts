import { describe, expect, it } from 'vitest';
import { lerpAngle, sampleSnapshots, type Snapshot } from '../../shared/game/interpolation.js';
import { positionAlongPath } from '../../shared/game/movement.js';
import { EntityTrack, SnapshotClock } from '../../web-client/src/state/interpolation-buffer.js';

const snap = (t: number, x: number, y = 0, facing = 0): Snapshot => ({ t, x, y, facing });

describe('sampleSnapshots', () => {
  it('interpolates linearly between the two snapshots around the time', () => {
    const s = sampleSnapshots([snap(0, 0), snap(100, 10), snap(200, 30)], 150);
    expect(s?.x).toBeCloseTo(20);
  });

  it('holds the first snapshot before it and is undefined with none', () => {
    expect(sampleSnapshots([snap(100, 5), snap(200, 9)], 50)?.x).toBe(5);
    expect(sampleSnapshots([], 50)).toBeUndefined();
  });

  it('extrapolates past the newest snapshot for a bounded time, then holds', () => {
    const track = [snap(0, 0), snap(100, 10)];
    expect(sampleSnapshots(track, 150, 150)?.x).toBeCloseTo(15);
    expect(sampleSnapshots(track, 1000, 150)?.x).toBeCloseTo(25);
  });

  it('turns the short way round between angles', () => {
    const a = lerpAngle(6.2, 0.1, 0.5);
    expect(Math.min(a, Math.PI * 2 - a)).toBeLessThan(0.2);
  });
});

describe('EntityTrack', () => {
  it('draws a mover smoothly between ticks 100 ms behind', () => {
    const track = new EntityTrack(0, 0, 0, 0);
    for (let t = 50; t <= 500; t += 50) track.push(t, t / 10, 0, 0);
    expect(track.sample(275).x).toBeCloseTo(27.5);
    expect(track.raw.x).toBe(50);
  });

  it('extrapolates a player who stopped only briefly, then settles where the server has them', () => {
    const track = new EntityTrack(0, 0, 0, 0);
    for (let t = 50; t <= 500; t += 50) track.push(t, t / 10, 0, 0);
    expect(track.sample(600).x).toBeCloseTo(60);
    expect(track.sample(650).x).toBeCloseTo(65);
    expect(track.sample(700).x).toBeCloseTo(60);
    expect(track.sample(800).x).toBeCloseTo(50);
    expect(track.sample(5000).x).toBeCloseTo(50);
  });

  it('walks a mob path with the same positions as positionAlongPath', () => {
    const track = new EntityTrack(100, 100, 0, 0);
    const waypoints = [
      { x: 200, y: 100 },
      { x: 200, y: 300 },
    ];
    track.pushPath(1000, 50, waypoints);
    for (const t of [1000, 2000, 3000, 4500, 9000]) {
      const expected = positionAlongPath({ x: 100, y: 100 }, waypoints, 50, t - 1000);
      const got = track.sample(t);
      expect(got.x).toBeCloseTo(expected.x);
      expect(got.y).toBeCloseTo(expected.y);
      expect(track.serverPosition(t).x).toBeCloseTo(expected.x);
    }
  });

  it('holds still at the end of a path instead of overshooting', () => {
    const track = new EntityTrack(0, 0, 0, 0);
    track.pushPath(0, 100, [{ x: 100, y: 0 }]);
    expect(track.sample(1100).x).toBeCloseTo(100);
  });

  it('lets a newer move replace the rest of a path', () => {
    const track = new EntityTrack(0, 0, 0, 0);
    track.pushPath(0, 100, [{ x: 1000, y: 0 }]);
    track.push(500, 50, 80, 0);
    expect(track.sample(500)).toMatchObject({ x: 50, y: 80 });
    expect(track.sample(2000).x).toBeLessThan(100);
    expect(track.path).toBeUndefined();
  });

  it('forgets old snapshots but keeps one before the drawn time', () => {
    const track = new EntityTrack(0, 0, 0, 0);
    for (let t = 50; t <= 5000; t += 50) track.push(t, t, 0, 0);
    track.trim(4000);
    expect(track.snapshots[0]!.t).toBeLessThanOrEqual(3000);
    expect(track.snapshots.length).toBeLessThan(64);
    expect(track.sample(4000).x).toBeCloseTo(4000);
  });
});

describe('SnapshotClock', () => {
  it('draws the interpolation delay behind the newest tick arrival', () => {
    const clock = new SnapshotClock(100);
    clock.observe(10_000, 500);
    expect(clock.serverNow(520)).toBe(10_020);
    expect(clock.renderTime(520)).toBe(9_920);
  });

  it('follows an earlier arrival at once and a later one only slowly', () => {
    const clock = new SnapshotClock(100);
    for (let i = 0; i < 5; i++) clock.observe(1000 + i * 50, i * 50);
    clock.observe(1300, 300 + 80); // 80 ms late
    expect(clock.serverNow(380)).toBeGreaterThan(1300 - 80 + 70);
    clock.observe(1350, 340); // early
    expect(clock.serverNow(340)).toBe(1350);
  });
});
