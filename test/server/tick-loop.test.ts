/**
 * The realm's fixed tick on its own, on fake timers: each tick is due one interval after the
 * previous one was due, whatever the tick itself took; after a stall it starts afresh rather
 * than running the missed ticks back to back.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TickLoop } from '../../server/zone/tick-loop.js';

describe('the tick loop', () => {
  /** Time the ticks themselves spend, on top of the fake timers' clock. */
  let spent: number;
  const now = (): number => Date.now() + spent;

  beforeEach(() => {
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    spent = 0;
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps its rate when each tick takes part of the interval', () => {
    const at: number[] = [];
    const loop = new TickLoop(
      20,
      () => {
        at.push(now());
        spent += 30;
      },
      now,
    );
    loop.start();
    for (let i = 0; i < 20; i++) vi.advanceTimersToNextTimer();
    loop.stop();
    // Due every 50 ms from the start: each tick's 30 ms is taken out of the wait for the next.
    expect(at).toEqual(Array.from({ length: 20 }, (_, i) => 50 * (i + 1)));
    expect(loop.lateTicks).toBe(0);
  });

  it('starts afresh after a stall longer than an interval, without a burst of missed ticks', () => {
    const at: number[] = [];
    const loop = new TickLoop(
      20,
      () => {
        at.push(now());
        if (at.length === 3) spent += 500;
      },
      now,
    );
    loop.start();
    for (let i = 0; i < 6; i++) vi.advanceTimersToNextTimer();
    loop.stop();
    // The third tick took 500 ms: the next is due one interval after it ended, and so on.
    expect(at).toEqual([50, 100, 150, 700, 750, 800]);
    expect(loop.lateTicks).toBe(1);
  });

  it('tells each tick how long after it was due it started', () => {
    const late: number[] = [];
    const loop = new TickLoop(
      20,
      (lateMs) => {
        late.push(lateMs);
        if (late.length === 2) spent += 80;
      },
      now,
    );
    loop.start();
    for (let i = 0; i < 4; i++) vi.advanceTimersToNextTimer();
    loop.stop();
    // The second tick took 80 ms: the third, due 50 ms after the second was, started 30 ms
    // late, and the 1 ms a timer set for now waits.
    expect(late).toEqual([0, 0, 31, 0]);
  });

  it('runs no tick once stopped', () => {
    const tick = vi.fn();
    const loop = new TickLoop(20, tick, now);
    loop.start();
    vi.advanceTimersByTime(120);
    loop.stop();
    vi.advanceTimersByTime(1000);
    expect(tick).toHaveBeenCalledTimes(2);
  });
});
