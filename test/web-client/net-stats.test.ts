import { describe, expect, it } from 'vitest';
import { NetStats } from '../../web-client/src/state/net-stats.js';

describe('netcode stats', () => {
  it('counts frames and bytes per second each way over the last second', () => {
    const s = new NetStats();
    for (let t = 0; t < 2000; t += 50) s.record('in', 'EntityMove', 16, t);
    for (let t = 0; t < 2000; t += 100) s.record('out', 'MoveInput', 27, t);
    const snap = s.snapshot(1999);
    expect(snap.framesInPerSec).toBe(20);
    expect(snap.bytesInPerSec).toBe(320);
    expect(snap.framesOutPerSec).toBe(10);
    expect(snap.totalFramesIn).toBe(40);
    expect(snap.totalBytesOut).toBe(20 * 27);
  });

  it('keeps totals per packet type', () => {
    const s = new NetStats();
    s.record('in', 'EntityMove', 16, 0);
    s.record('in', 'EntityMove', 16, 1);
    s.record('in', 'WorldTick', 18, 2);
    expect(s.snapshot(3).packetsIn).toEqual({
      EntityMove: { frames: 2, bytes: 32 },
      WorldTick: { frames: 1, bytes: 18 },
    });
  });

  it('measures the tick rate from server tick numbers and times, not arrival times', () => {
    const s = new NetStats();
    expect(s.tickRate()).toBeUndefined();
    for (let i = 0; i < 40; i++) {
      if (i % 3 === 0) continue; // some ticks dropped on the way
      s.recordTick(1000 + i, 1_000_000 + i * 50);
    }
    expect(s.tickRate()).toBeCloseTo(20);
  });

  it('drops everything older than the window', () => {
    const s = new NetStats();
    s.record('in', 'Pong', 30, 0);
    expect(s.perSecond('in', 5000)).toEqual({ frames: 0, bytes: 0 });
  });
});
