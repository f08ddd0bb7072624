import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../shared/game/rng.js';
import { DelayQueue, MIN_RTO_MS } from '../../web-client/src/state/link-lab.js';

const queue = (latencyMs: number, jitterMs = 0, lossPercent = 0, seed = 1, bandwidthKbps = 0) =>
  new DelayQueue<number>({ latencyMs, jitterMs, lossPercent, bandwidthKbps }, mulberry32(seed));

describe('link lab delay queue', () => {
  it('caps the bandwidth: each message waits for the wire behind the ones before it', () => {
    // 80 kbit/s: 1 000 bytes take 100 ms on the wire.
    const q = queue(20, 0, 0, 1, 80);
    expect(q.push(1, 0, 1_000)).toBe(120);
    expect(q.push(2, 0, 1_000)).toBe(220);
    expect(q.push(3, 50, 100)).toBe(230);
    // The wire has been free for a while: only its own time on it.
    expect(q.push(4, 1_000, 500)).toBe(1_070);
  });

  it('holds each message for the added latency', () => {
    const q = queue(80);
    q.push(1, 1000);
    q.push(2, 1010);
    expect(q.take(1079)).toEqual([]);
    expect(q.take(1080)).toEqual([1]);
    expect(q.take(1089)).toEqual([]);
    expect(q.take(1090)).toEqual([2]);
    expect(q.size).toBe(0);
  });

  it('spreads delays with jitter but never reorders messages', () => {
    const q = queue(50, 100);
    const dues: number[] = [];
    for (let i = 0; i < 200; i++) dues.push(q.push(i, i * 5));
    const spread = dues.map((d, i) => d - i * 5);
    expect(Math.max(...spread) - Math.min(...spread)).toBeGreaterThan(50);
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(50);
    for (let i = 1; i < dues.length; i++) expect(dues[i]!).toBeGreaterThanOrEqual(dues[i - 1]!);
    const out: number[] = [];
    for (let t = 0; t <= 2000; t += 7) out.push(...q.take(t));
    expect(out).toEqual([...Array(200).keys()]);
  });

  it('loses about the set share of messages and delivers each one late instead', () => {
    const q = queue(20, 0, 10, 42);
    const n = 5000;
    let late = 0;
    for (let i = 0; i < n; i++) {
      const at = i * 1000; // far apart: no head-of-line wait between them
      if (q.push(i, at) - at >= MIN_RTO_MS) late++;
    }
    expect(q.lost).toBe(late);
    expect(late / n).toBeGreaterThan(0.08);
    expect(late / n).toBeLessThan(0.12);
    expect(q.take(Infinity)).toHaveLength(n);
  });

  it('is the same run for the same seed', () => {
    const a = queue(10, 40, 5, 7);
    const b = queue(10, 40, 5, 7);
    for (let i = 0; i < 100; i++) expect(a.push(i, i)).toBe(b.push(i, i));
  });

  it('flushes everything held when switched off', () => {
    const q = queue(500);
    q.push(1, 0);
    q.push(2, 0);
    expect(q.nextDue()).toBe(500);
    expect(q.flush()).toEqual([1, 2]);
    expect(q.nextDue()).toBeUndefined();
  });
});
