import { describe, expect, it } from 'vitest';
import { maxMoveDistance, positionAlongPath, segmentBlocked } from '../../shared/game/movement.js';
import { join, move, player, received, sent, tick, world } from './builders.js';

describe('move validation', () => {
  it('acknowledges a move at walking speed and updates the position', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 100 }));
    const events = tick(w, [move(p, 106, 100, 7)], 50);
    expect(received(events, p.id, 'MoveAck')).toEqual([{ seq: 7 }]);
    expect(sent(events, 'PositionCorrection')).toEqual([]);
    expect([p.x, p.y]).toEqual([106, 100]);
  });

  it('accepts a steady walk of 20 moves per second for several seconds', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    let corrections = 0;
    for (let i = 1; i <= 60; i++) {
      const events = tick(w, [move(p, 100 + i * 6, 300, i)], i * 50);
      corrections += sent(events, 'PositionCorrection').length;
    }
    expect(corrections).toBe(0);
    expect(p.x).toBe(460);
  });

  it('accepts moves that bunch up into one tick after an empty one', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    tick(w, [move(p, 106, 300, 1)], 50);
    tick(w, [], 100);
    const events = tick(w, [move(p, 112, 300, 2), move(p, 118, 300, 3)], 150);
    expect(received(events, p.id, 'MoveAck')).toEqual([{ seq: 2 }, { seq: 3 }]);
  });

  it('corrects a move beyond speed × tolerance and keeps the last valid position', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    const far = 100 + maxMoveDistance(120, 1000) + 20;
    const events = tick(w, [move(p, far, 300, 9)], 1000);
    expect(received(events, p.id, 'PositionCorrection')).toEqual([
      { seq: 9, x: 100, y: 300, facing: 0, reason: 'speed' },
    ]);
    expect(received(events, p.id, 'MoveAck')).toEqual([]);
    expect([p.x, p.y]).toEqual([100, 300]);
  });

  it('corrects a client that keeps running faster than the tolerance', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    const reasons: string[] = [];
    let x = 100;
    for (let i = 1; i <= 40; i++) {
      x += 12; // 240 units/s, twice the walking speed
      const events = tick(w, [move(p, x, 300, i)], i * 50);
      for (const c of received(events, p.id, 'PositionCorrection')) {
        reasons.push(c.reason);
        x = c.x;
      }
    }
    expect(reasons.length).toBeGreaterThan(0);
    expect(new Set(reasons)).toEqual(new Set(['speed']));
  });

  it('corrects a move outside the zone with reason bounds', () => {
    const w = world();
    const p = join(w, player({ x: 12, y: 300 }));
    const events = tick(w, [move(p, 2, 300, 1)], 50);
    expect(received(events, p.id, 'PositionCorrection')[0]?.reason).toBe('bounds');
    expect(p.x).toBe(12);
  });

  it('corrects a move into a wall with reason obstacle', () => {
    const w = world();
    const p = join(w, player({ x: 485, y: 200 }));
    const events = tick(w, [move(p, 495, 200, 1)], 100);
    expect(received(events, p.id, 'PositionCorrection')[0]?.reason).toBe('obstacle');
    expect(p.x).toBe(485);
  });

  it('corrects a hop across a thin wall even when both ends are clear', () => {
    const w = world({ zone: { obstacles: [{ x: 500, y: 0, w: 2, h: 400 }] } });
    const p = join(w, player({ x: 490, y: 200 }));
    const events = tick(w, [move(p, 512, 200, 1)], 1000);
    expect(received(events, p.id, 'PositionCorrection')[0]?.reason).toBe('obstacle');
  });

  it('corrects any move of a dead player with reason dead', () => {
    const w = world();
    const p = join(w, player({ x: 100, y: 300 }));
    p.alive = false;
    const events = tick(w, [move(p, 101, 300, 1)], 50);
    expect(received(events, p.id, 'PositionCorrection')[0]?.reason).toBe('dead');
  });
});

describe('move broadcast', () => {
  it('sends observers one EntityMove per tick with only the newest position', () => {
    const w = world();
    const a = join(w, player({ x: 100, y: 300 }));
    const b = join(w, player({ x: 150, y: 300 }));
    const events = tick(w, [move(a, 104, 300, 1), move(a, 108, 300, 2), move(a, 112, 300, 3)], 200);
    expect(received(events, b.id, 'EntityMove')).toEqual([{ id: a.id, x: 112, y: 300, facing: 0 }]);
    expect(received(events, a.id, 'EntityMove')).toEqual([]);
  });
});

describe('shared path rules', () => {
  it('places a walker along its waypoints by elapsed time', () => {
    const path = [
      { x: 100, y: 0 },
      { x: 100, y: 100 },
    ];
    expect(positionAlongPath({ x: 0, y: 0 }, path, 100, 500)).toMatchObject({ x: 50, y: 0, arrived: false });
    const turned = positionAlongPath({ x: 0, y: 0 }, path, 100, 1500);
    expect(turned).toMatchObject({ x: 100, y: 50, arrived: false });
    expect(turned.facing).toBeCloseTo(Math.PI / 2);
    expect(positionAlongPath({ x: 0, y: 0 }, path, 100, 5000)).toMatchObject({
      x: 100,
      y: 100,
      arrived: true,
    });
  });

  it('finds walls across a straight walk', () => {
    const wall = [{ x: 50, y: 0, w: 10, h: 100 }];
    expect(segmentBlocked({ x: 0, y: 50 }, { x: 100, y: 50 }, wall)).toBe(true);
    expect(segmentBlocked({ x: 0, y: 150 }, { x: 100, y: 150 }, wall)).toBe(false);
  });
});
