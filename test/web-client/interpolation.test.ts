import { describe, expect, it } from 'vitest';
import { MAX_DEAD_RECKON_MS } from '../../shared/game/motion.js';
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

  it('starts a path from the origin it is given, not from where the track had the mob', () => {
    const track = new EntityTrack(0, 0, 0, 0);
    track.pushPath(1000, 100, [{ x: 300, y: 200 }], { x: 200, y: 200 });
    expect(track.sample(1000)).toMatchObject({ x: 200, y: 200 });
    expect(track.sample(1500).x).toBeCloseTo(250);
    expect(track.serverPosition(1500).x).toBeCloseTo(250);
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

describe('EntityTrack.pushState', () => {
  /** A track whose entity started walking east at 100 u/s from the origin at t=1000. */
  function walker(): EntityTrack {
    const track = new EntityTrack(0, 0, 0, 0);
    track.pushState(1000, 0, 0, 0, true, 100, false);
    return track;
  }

  it('walks a state on at its speed before anything newer comes', () => {
    const track = walker();
    expect(track.sample(1000)).toMatchObject({ x: 0, y: 0 });
    expect(track.sample(1400).x).toBeCloseTo(40);
    expect(track.sample(1400).y).toBeCloseTo(0);
    expect(track.raw).toEqual({ t: 1000, x: 0, y: 0, facing: 0 });
  });

  it('lands exactly on an explicit stop and never walks past it', () => {
    const track = walker();
    // It stopped at 70 by 1 800, short of the 80 dead reckoning had it at.
    track.pushState(1800, 70, 0, 0, false, 0, false);
    for (let t = 1000; t <= 1800; t += 50) expect(track.sample(t).x).toBeCloseTo(((t - 1000) / 800) * 70);
    expect(track.sample(1800)).toMatchObject({ x: 70, y: 0 });
    for (let t = 1000; t <= 10_000; t += 13) expect(track.sample(t).x).toBeLessThanOrEqual(70);
    for (const t of [1801, 1802, 2000, 2000 + MAX_DEAD_RECKON_MS, 60_000]) {
      expect(track.sample(t)).toMatchObject({ x: 70, y: 0 });
    }
  });

  it('holds a walker whose updates stalled where MAX_DEAD_RECKON_MS took it, without pulling it back', () => {
    const track = walker();
    const held = (100 * MAX_DEAD_RECKON_MS) / 1000;
    expect(track.sample(1000 + MAX_DEAD_RECKON_MS).x).toBeCloseTo(held);
    let prev = -Infinity;
    for (let t = 1000; t <= 1000 + MAX_DEAD_RECKON_MS + 5000; t += 20) {
      const x = track.sample(t).x;
      expect(x).toBeGreaterThanOrEqual(prev - 1e-9);
      expect(x).toBeLessThanOrEqual(held + 1e-9);
      prev = x;
    }
    expect(track.sample(60_000).x).toBeCloseTo(held);
  });

  it('replaces the projection with each new state: a heartbeat, then a turn', () => {
    const track = walker();
    track.pushState(2000, 100, 0, Math.PI / 2, true, 100, false);
    expect(track.sample(1500).x).toBeCloseTo(50);
    const turned = track.sample(2500);
    expect(turned.x).toBeCloseTo(100);
    expect(turned.y).toBeCloseTo(50);
    // Nothing the first state projected past 2 000 is left.
    expect(Math.max(...track.snapshots.map((s) => s.x))).toBeCloseTo(100);
  });

  it('holds a standing state still', () => {
    const track = new EntityTrack(0, 0, 0, 0);
    track.pushState(1000, 30, 40, 1, false, 0, false);
    expect(track.sample(1000)).toMatchObject({ x: 30, y: 40 });
    expect(track.sample(9000)).toMatchObject({ x: 30, y: 40 });
  });

  it('snaps on a jump instead of blending from the older states', () => {
    const track = walker();
    track.pushState(1500, 500, 500, 0, false, 0, true);
    expect(track.sample(1200)).toMatchObject({ x: 500, y: 500 });
    expect(track.sample(1500)).toMatchObject({ x: 500, y: 500 });
    expect(track.snapshots.every((s) => s.t >= 1500)).toBe(true);
  });

  it('puts the ghost where the newest state has the entity now: dead-reckoned while walking, held after', () => {
    const track = walker();
    expect(track.serverPosition(1000)).toMatchObject({ x: 0, y: 0 });
    expect(track.serverPosition(1500)).toMatchObject({ x: 50, y: 0, facing: 0 });
    expect(track.serverPosition(60_000).x).toBeCloseTo((100 * MAX_DEAD_RECKON_MS) / 1000);
    track.pushState(1800, 70, 0, 0, false, 0, false);
    expect(track.serverPosition(5000)).toMatchObject({ x: 70, y: 0 });
  });

  it('ends a path: a state after it takes over from its time', () => {
    const track = new EntityTrack(0, 0, 0, 0);
    track.pushPath(0, 100, [{ x: 1000, y: 0 }], { x: 0, y: 0 });
    track.pushState(500, 50, 0, 0, false, 0, false);
    expect(track.path).toBeUndefined();
    expect(track.sample(250).x).toBeCloseTo(25);
    expect(track.sample(3000)).toMatchObject({ x: 50, y: 0 });
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
