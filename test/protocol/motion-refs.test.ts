/**
 * The receiving half of WorldUpdate's stateful parts: heads that count on from EnterWorld,
 * moveBy records resolved against each entity's reference, aged references carried to the
 * frame's time.
 */
import { describe, expect, it } from 'vitest';
import {
  dequantizeCoord,
  MotionRefs,
  quantizeCoord,
  reckonPath,
  reckonRef,
  unzigzag,
  WorldUpdate,
  zigzag,
  type EntityRecord,
  type MotionRef,
  type PathRef,
} from '../../shared/protocol/index.js';

/** A coordinate as it comes back from the wire (its 1/16-unit step). */
const step = (v: number): number => dequantizeCoord(quantizeCoord(v));

function update(tick: number, time: number, records: EntityRecord[]) {
  // Through the codec, as a client gets it.
  return WorldUpdate.decode(WorldUpdate.encode({ tick, time, records }).subarray(6));
}

const spawn = (id: number, speed = 100): EntityRecord => ({
  kind: 'spawn',
  id,
  entity: 'player',
  template: 0,
  name: 'Ann',
  level: 1,
  health: 10,
  maxHealth: 10,
  speed,
  appearance: 0,
  alive: true,
});

describe('MotionRefs', () => {
  it('counts heads on from EnterWorld', () => {
    const refs = new MotionRefs();
    refs.enter(1000, 1_763_000_000_000);
    const a = update(0, 0, []);
    refs.resolve(a);
    expect(a).toMatchObject({ tick: 1000, time: 1_763_000_000_000 });
    const b = update(1, 50, []);
    refs.resolve(b);
    expect(b).toMatchObject({ tick: 1001, time: 1_763_000_000_050 });
    const c = update(3, 151, []);
    refs.resolve(c);
    expect(c).toMatchObject({ tick: 1004, time: 1_763_000_000_201 });
  });

  it('turns a moveBy into the move its reference and deltas give, and takes it as the new reference', () => {
    const refs = new MotionRefs();
    refs.enter(0, 10_000);
    // Walking east at the spawn's speed (100 u/s) from x = 200 at t = 10 000.
    const first = update(0, 0, [
      spawn(7),
      { kind: 'move', id: 7, x: 200, y: 300, angle: 0, moving: true, jump: false, speed: undefined },
    ]);
    refs.resolve(first);
    // 500 ms on, the reference puts it at x = 250: 2 steps past that and half a step north, turning north.
    const second = update(10, 500, [
      {
        kind: 'moveBy',
        id: 7,
        dx: 2,
        dy: -8,
        angle: -Math.PI / 2 + Math.PI * 2,
        moving: true,
        speed: undefined,
      },
    ]);
    refs.resolve(second);
    const m = second.records[0]!;
    expect(m).toMatchObject({ kind: 'move', id: 7, moving: true, jump: false, speed: undefined });
    if (m.kind !== 'move') throw new Error('not a move');
    expect(m.x).toBeCloseTo(dequantizeCoord(quantizeCoord(200) + Math.round(50 * (65535 / 4096)) + 2), 6);
    expect(m.y).toBeCloseTo(dequantizeCoord(quantizeCoord(300) - 8), 6);
    expect(m.angle).toBeCloseTo((Math.PI * 3) / 2, 6);
    // Standing on with the same angle: 200 ms later it is 20 units further north.
    const third = update(4, 200, [
      { kind: 'moveBy', id: 7, dx: 0, dy: 0, angle: undefined, moving: false, speed: undefined },
    ]);
    refs.resolve(third);
    const stop = third.records[0]!;
    if (stop.kind !== 'move') throw new Error('not a move');
    expect(stop.moving).toBe(false);
    expect(stop.angle).toBeCloseTo((Math.PI * 3) / 2, 6);
    expect(stop.y).toBeCloseTo(m.y - 20, 1);
  });

  it('drops a moveBy for an entity it holds no reference for, and forgets one at its despawn', () => {
    const refs = new MotionRefs();
    refs.enter(0, 0);
    const orphan = update(1, 50, [
      { kind: 'moveBy', id: 3, dx: 1, dy: 1, angle: 0, moving: true, speed: undefined },
      { kind: 'health', id: 3, health: 5, maxHealth: 10 },
    ]);
    refs.resolve(orphan);
    expect(orphan.records.map((r) => r.kind)).toEqual(['health']);
    const placed = update(1, 50, [
      spawn(3),
      { kind: 'move', id: 3, x: 10, y: 10, angle: 0, moving: false, jump: false, speed: undefined },
    ]);
    refs.resolve(placed);
    const gone = update(1, 50, [
      { kind: 'despawn', id: 3, reason: 'outOfRange' },
      { kind: 'moveBy', id: 3, dx: 1, dy: 1, angle: 0, moving: true, speed: undefined },
    ]);
    refs.resolve(gone);
    expect(gone.records.map((r) => r.kind)).toEqual(['despawn']);
  });

  it('keeps an aged reference as it held, with its age, and counts later moveBy records from its own time', () => {
    const refs = new MotionRefs();
    refs.enter(0, 5_000);
    // Sent as it was 300 ms ago: walking east at 100 u/s from x = 100.
    const joined = update(1, 50, [
      spawn(4),
      {
        kind: 'move',
        id: 4,
        x: 100,
        y: 100,
        angle: 0,
        moving: true,
        jump: false,
        speed: undefined,
        age: 300,
      },
    ]);
    refs.resolve(joined);
    const m = joined.records[1]!;
    if (m.kind !== 'move') throw new Error('not a move');
    expect(m.age).toBe(300);
    expect(m.x).toBeCloseTo(100, 1);
    // 100 ms later a moveBy of 0: the reference (x = 100 at 4 750) puts it at x = 140.
    const on = update(2, 100, [
      { kind: 'moveBy', id: 4, dx: 0, dy: 0, angle: undefined, moving: true, speed: undefined },
    ]);
    refs.resolve(on);
    const n = on.records[0]!;
    if (n.kind !== 'move') throw new Error('not a move');
    expect(n.x).toBeCloseTo(140, 1);
    expect(n.age).toBeUndefined();
    // A stop sent as it was 80 ms before the next frame: where the reference puts it then.
    const stop = update(3, 50, [
      { kind: 'moveBy', id: 4, dx: 0, dy: 0, angle: undefined, moving: false, speed: undefined, age: 80 },
    ]);
    refs.resolve(stop);
    expect(stop.records[0]).toMatchObject({ kind: 'move', moving: false, age: 80 });
    expect((stop.records[0] as { x: number }).x).toBeCloseTo(137, 1);
  });

  it('starts a HERE path where the reference puts the entity, and stops one there', () => {
    const refs = new MotionRefs();
    refs.enter(0, 5_000);
    // A wolf sent as it was 300 ms ago: from x = 100 east toward x = 200 at 100 u/s.
    const spawned = update(1, 50, [
      spawn(9),
      { kind: 'path', id: 9, x: 100, y: 100, speed: undefined, waypoints: [{ x: 200, y: 100 }], age: 300 },
    ]);
    refs.resolve(spawned);
    const first = spawned.records[1]!;
    if (first.kind !== 'path') throw new Error('not a path');
    expect(first.age).toBeUndefined();
    expect(first.x).toBeCloseTo(130, 1);
    expect(first.waypoints).toEqual([{ x: 200, y: 100 }].map((p) => ({ x: step(p.x), y: step(p.y) })));
    // 100 ms on it turns north from where it is (x = 140).
    const turned = update(1, 100, [
      { kind: 'pathHere', id: 9, speed: undefined, waypoints: [{ x: 140, y: 200 }] },
    ]);
    refs.resolve(turned);
    const second = turned.records[0]!;
    if (second.kind !== 'path') throw new Error('not a path');
    expect(second.x).toBeCloseTo(140, 1);
    expect(second.y).toBeCloseTo(100, 1);
    // 100 ms on it stops 10 units north, facing north.
    const stopped = update(1, 100, [{ kind: 'pathHere', id: 9, speed: undefined, waypoints: [] }]);
    refs.resolve(stopped);
    const stand = stopped.records[0]!;
    if (stand.kind !== 'move') throw new Error('not a move');
    expect(stand.moving).toBe(false);
    expect(stand.x).toBeCloseTo(140, 1);
    expect(stand.y).toBeCloseTo(110, 1);
    expect(stand.angle).toBeCloseTo(Math.PI / 2, 1);
    // Without a reference there is nothing to start from: dropped, as a moveBy is.
    const orphan = update(1, 50, [{ kind: 'pathHere', id: 11, speed: undefined, waypoints: [] }]);
    refs.resolve(orphan);
    expect(orphan.records).toEqual([]);
  });

  it('lays a path reference along its legs in whole coord steps', () => {
    const ref: PathRef = { qx: 1000, qy: 1000, qa: 7, qs: 1600, t: 0, pts: [2000, 1000, 2000, 3000] };
    const out = { qx: 0, qy: 0, qa: 0 };
    const perSecond = 100 * (65535 / 4096);
    expect(reckonPath(ref, 0, out)).toBe(0);
    expect(out).toEqual({ qx: 1000, qy: 1000, qa: 0 });
    expect(reckonPath(ref, 500, out)).toBe(0);
    expect(out.qx).toBe(Math.floor(1000 + perSecond / 2 + 0.5));
    // Past the corner: on the second leg, facing +y (angle step 64).
    const t = Math.ceil((1000 / perSecond) * 1000) + 100;
    expect(reckonPath(ref, t, out)).toBe(1);
    expect(out.qx).toBe(2000);
    expect(out.qa).toBe(64);
    // Arrived: the last waypoint, facing the last leg's way.
    expect(reckonPath(ref, 1e9, out)).toBe(2);
    expect(out).toEqual({ qx: 2000, qy: 3000, qa: 64 });
    // No waypoints: standing where it is, facing as it did.
    expect(reckonPath({ ...ref, pts: [] }, 1e9, out)).toBe(0);
    expect(out).toEqual({ qx: 1000, qy: 1000, qa: 7 });
  });

  it('reckons in whole coord steps, clamped to the zone', () => {
    const ref: MotionRef = { qx: 65530, qy: 3, qa: 0, moving: true, qs: 1600, t: 0 };
    const out = { qx: 0, qy: 0 };
    reckonRef(ref, 1000, out);
    expect(out).toEqual({ qx: 65535, qy: 3 });
    reckonRef({ ...ref, qa: 128 }, 1000, out);
    expect(out.qx).toBe(65530 - Math.floor(100 * (65535 / 4096) + 0.5));
    reckonRef({ ...ref, moving: false }, 1e9, out);
    expect(out).toEqual({ qx: 65530, qy: 3 });
  });

  it('zigzags small magnitudes of either sign into one byte', () => {
    for (const n of [0, -1, 1, -64, 63, 65535, -65535]) expect(unzigzag(zigzag(n))).toBe(n);
    expect(zigzag(-64)).toBeLessThan(128);
    expect(zigzag(63)).toBeLessThan(128);
  });
});
