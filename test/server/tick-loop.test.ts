/**
 * The realm's fixed tick on its own, on fake timers: each tick is due one interval after the
 * previous one was due, whatever the tick itself took; after a stall it starts afresh rather
 * than running the missed ticks back to back.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { TickLoop } from '../../server/zone/tick-loop.js';

describe('the tick loop', () => {
  /** Time the ticks themselves spend, on top of the fake timers' clock. */
  let spent: number;
  const now = (): number => Date.now() + spent;
  /** Ticks at once when their timer fires (the fake timers have no I/O to wait for). */
  const run = (fn: () => void): void => fn();

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
      run,
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
      run,
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
      run,
    );
    loop.start();
    for (let i = 0; i < 4; i++) vi.advanceTimersToNextTimer();
    loop.stop();
    // The second tick took 80 ms: the third, due 50 ms after the second was, started 30 ms
    // late, and the 1 ms a timer set for now waits.
    expect(late).toEqual([0, 0, 31, 0]);
  });

  it('runs a tick after the socket reads of the turn its timer fired in', async () => {
    vi.useRealTimers();
    const server = createServer();
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const accepted = new Promise<Socket>((ok) => server.once('connection', ok));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((ok) => client.once('connect', ok));
    const socket = await accepted;
    const order: string[] = [];
    socket.on('data', () => {
      order.push('read');
      // What a read queues for the turn's end (the gateway's input outbox).
      setImmediate(() => order.push('flush'));
    });
    const ticked = new Promise<void>((ok) => {
      const loop = new TickLoop(100, () => {
        order.push('tick');
        loop.stop();
        ok();
      });
      loop.start();
      // An input reaches the socket while the loop is busy past the tick's time: the tick's
      // timer and the read are due in the same turn.
      // (At the end of a turn, as the gateway's socket writes after a tick are: the next turn
      // starts with its timers.)
      setTimeout(
        () =>
          setImmediate(() => {
            client.write('input');
            const until = performance.now() + 25;
            while (performance.now() < until);
          }),
        2,
      );
    });
    await ticked;
    client.destroy();
    socket.destroy();
    await new Promise((ok) => server.close(ok));
    expect(order).toEqual(['read', 'flush', 'tick']);
  });

  it('runs no tick once stopped', () => {
    const tick = vi.fn();
    const loop = new TickLoop(20, tick, now, run);
    loop.start();
    vi.advanceTimersByTime(120);
    loop.stop();
    vi.advanceTimersByTime(1000);
    expect(tick).toHaveBeenCalledTimes(2);
  });
});
