import { describe, expect, it } from 'vitest';
import { angleBetween, MoveSender, type SendReason } from '../../shared/client/move-sender.js';
import { CLIENT_HEARTBEAT_MS, CLIENT_TURN_EPSILON } from '../../shared/game/motion.js';

/** A sender that has the walker standing at (100, 100) facing east at t=0. */
function standing(): MoveSender {
  const s = new MoveSender();
  s.reset(0, 100, 100, 0);
  return s;
}

describe('MoveSender', () => {
  it('sends a start with the state it was given', () => {
    const s = standing();
    expect(s.update(10, 102, 100, 0, true, 120)).toEqual({
      x: 102,
      y: 100,
      facing: 0,
      moving: true,
      speed: 120,
    });
    expect(s.reason).toBe('start');
  });

  it('sends a stop, with no speed, where the walker stopped', () => {
    const s = standing();
    s.update(10, 102, 100, 0, true, 120);
    expect(s.update(100, 112, 100, 0, false, 120)).toEqual({
      x: 112,
      y: 100,
      facing: 0,
      moving: false,
      speed: 0,
    });
    expect(s.reason).toBe('stop');
    // Stopped it stays stopped: nothing more.
    expect(s.update(150, 112, 100, 0, false, 0)).toBeUndefined();
  });

  it('sends a turn once the heading moves by more than CLIENT_TURN_EPSILON, and nothing for less', () => {
    const s = standing();
    s.update(0, 100, 100, 0, true, 120);
    expect(s.update(20, 102, 100, CLIENT_TURN_EPSILON * 0.9, true, 120)).toBeUndefined();
    expect(s.update(40, 104, 100, CLIENT_TURN_EPSILON * 1.5, true, 120)).toMatchObject({
      facing: CLIENT_TURN_EPSILON * 1.5,
      moving: true,
    });
    expect(s.reason).toBe('turn');
    // The epsilon is measured from the heading last sent, not the last one seen.
    expect(s.update(60, 106, 100, CLIENT_TURN_EPSILON * 2.4, true, 120)).toBeUndefined();
    expect(s.update(80, 108, 100, CLIENT_TURN_EPSILON * 2.6, true, 120)).toBeDefined();
  });

  it('measures turns the short way round 2π', () => {
    const s = standing();
    s.update(0, 100, 100, Math.PI * 2 - 0.005, true, 120);
    expect(s.update(20, 102, 100, 0.005, true, 120)).toBeUndefined();
    expect(s.update(40, 104, 100, 0.5, true, 120)).toBeDefined();
  });

  it('sends a heartbeat every CLIENT_HEARTBEAT_MS while walking straight, and nothing between', () => {
    const s = standing();
    const sent: { t: number; reason: SendReason }[] = [];
    for (let t = 0; t <= 2_000; t += 10) {
      const state = s.update(t, 100 + t * 0.12, 100, 0, true, 120);
      if (state) sent.push({ t, reason: s.reason });
    }
    expect(sent[0]).toEqual({ t: 0, reason: 'start' });
    const beats = sent.slice(1);
    expect(beats.every((b) => b.reason === 'heartbeat')).toBe(true);
    expect(beats.map((b) => b.t)).toEqual(
      Array.from(
        { length: Math.floor(2_000 / CLIENT_HEARTBEAT_MS) },
        (_, i) => (i + 1) * CLIENT_HEARTBEAT_MS,
      ),
    );
  });

  it('counts the heartbeat from the newest send of any kind', () => {
    const s = standing();
    s.update(0, 100, 100, 0, true, 120);
    s.update(200, 124, 100, 1, true, 120); // turn
    expect(s.update(CLIENT_HEARTBEAT_MS, 130, 105, 1, true, 120)).toBeUndefined();
    expect(s.update(200 + CLIENT_HEARTBEAT_MS, 140, 110, 1, true, 120)).toBeDefined();
    expect(s.reason).toBe('heartbeat');
  });

  it('sends nothing while standing still, however long', () => {
    const s = standing();
    for (let t = 0; t <= 60_000; t += 100) expect(s.update(t, 100, 100, 0, false, 0)).toBeUndefined();
  });

  it('sends a standing walker turning to face elsewhere, once', () => {
    const s = standing();
    expect(s.update(10, 100, 100, 2, false, 0)).toMatchObject({ facing: 2, moving: false, speed: 0 });
    expect(s.reason).toBe('turn');
    expect(s.update(5_000, 100, 100, 2, false, 0)).toBeUndefined();
  });

  it('sends a speed change of more than 1 unit per second, and not a smaller one', () => {
    const s = standing();
    s.update(0, 100, 100, 0, true, 120);
    expect(s.update(20, 102, 100, 0, true, 119.5)).toBeUndefined();
    expect(s.update(40, 104, 100, 0, true, 121)).toBeUndefined();
    expect(s.update(60, 106, 100, 0, true, 84)).toMatchObject({ speed: 84, moving: true });
    expect(s.reason).toBe('turn');
    expect(s.update(80, 108, 100, 0, true, 120)).toMatchObject({ speed: 120 });
  });

  it('starts over from a reset: the server has the walker standing where it said', () => {
    const s = standing();
    s.update(0, 100, 100, 0, true, 120);
    s.reset(100, 50, 50, 1);
    // Still walking after the reset: the walk starts again.
    expect(s.update(110, 52, 50, 0, true, 120)).toMatchObject({ x: 52, moving: true });
    expect(s.reason).toBe('start');
    s.reset(200, 60, 60, 1);
    // Standing as the reset said: nothing to tell.
    expect(s.update(210, 60, 60, 1, false, 0)).toBeUndefined();
  });
});

describe('angleBetween', () => {
  it('is the smaller angle between two headings', () => {
    expect(angleBetween(0, Math.PI / 2)).toBeCloseTo(Math.PI / 2);
    expect(angleBetween(0.1, Math.PI * 2 - 0.1)).toBeCloseTo(0.2);
    expect(angleBetween(-Math.PI / 2, Math.PI / 2)).toBeCloseTo(Math.PI);
    expect(angleBetween(5 * Math.PI, Math.PI)).toBeCloseTo(0);
  });
});
