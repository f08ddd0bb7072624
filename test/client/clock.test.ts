import { describe, expect, it } from 'vitest';
import { ClockSync } from '../../shared/client/clock.js';

/** A clock whose time the test sets. */
function manualClock(start = 1_000) {
  let t = start;
  return { now: () => t, set: (v: number) => (t = v) };
}

describe('ClockSync', () => {
  it('reads the server clock as the client clock until a round trip is measured', () => {
    const c = manualClock(5_000);
    const sync = new ClockSync({ now: c.now });
    expect(sync.synced).toBe(false);
    expect(sync.serverNow()).toBe(5_000);
  });

  it('computes rtt and offset from one round trip', () => {
    const c = manualClock();
    const sync = new ClockSync({ now: c.now });
    // Sent at 1000, server stamped 10_050, back at 1100: rtt 100, midpoint 1050, offset 9000.
    const s = sync.addSample(1_000, 10_050, 1_100);
    expect(s).toEqual({ rtt: 100, offset: 9_000, at: 1_100 });
    c.set(2_000);
    expect(sync.serverNow()).toBe(11_000);
    expect(sync.toClientTime(11_000)).toBe(2_000);
  });

  it('uses the sample with the lowest rtt in its window', () => {
    const sync = new ClockSync({ now: () => 0 });
    sync.addSample(0, 550, 100); // rtt 100, offset 500
    sync.addSample(1_000, 1_520, 1_040); // rtt 40, offset 500
    sync.addSample(2_000, 2_900, 2_400); // rtt 400: a delayed packet, offset 700
    expect(sync.rtt).toBe(40);
    expect(sync.offset).toBe(500);
    expect(sync.lastRtt).toBe(400);
  });

  it('forgets samples that fall out of the window', () => {
    const sync = new ClockSync({ now: () => 0, window: 2 });
    sync.addSample(0, 110, 20); // rtt 20, offset 100
    sync.addSample(100, 290, 180); // rtt 80, offset 150
    sync.addSample(200, 390, 280); // rtt 80, offset 150: the rtt-20 sample is gone
    expect(sync.rtt).toBe(80);
    expect(sync.offset).toBe(150);
  });

  it('never counts a negative round trip', () => {
    const sync = new ClockSync({ now: () => 0 });
    expect(sync.addSample(1_000, 2_000, 990).rtt).toBe(0);
  });

  it('defaults to an epoch-based clock near Date.now()', () => {
    const sync = new ClockSync();
    expect(Math.abs(sync.now() - Date.now())).toBeLessThan(60_000);
  });
});
