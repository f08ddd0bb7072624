import { describe, expect, it } from 'vitest';
import { RateBuckets, TokenBucket } from '../../server/session/rate-limit.js';

describe('TokenBucket', () => {
  it('allows a burst, then refuses until time refills it', () => {
    const bucket = new TokenBucket({ perSecond: 10, burst: 3 });
    expect([bucket.take(0), bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(bucket.take(50)).toBe(false);
    expect(bucket.take(100)).toBe(true);
    expect(bucket.take(100)).toBe(false);
  });

  it('never holds more than its burst', () => {
    const bucket = new TokenBucket({ perSecond: 10, burst: 2 });
    bucket.take(0);
    const taken = [1, 2, 3].map(() => bucket.take(60_000));
    expect(taken).toEqual([true, true, false]);
  });

  it('ignores a clock that goes backwards', () => {
    const bucket = new TokenBucket({ perSecond: 1, burst: 1 });
    expect(bucket.take(1000)).toBe(true);
    expect(bucket.take(0)).toBe(false);
    expect(bucket.take(2000)).toBe(true);
  });
});

describe('RateBuckets', () => {
  it('keeps one bucket per class', () => {
    const limit = { perSecond: 1, burst: 1 };
    const buckets = new RateBuckets({ default: limit, move: limit, chat: limit, auth: limit });
    expect(buckets.take('chat', 0)).toBe(true);
    expect(buckets.take('chat', 0)).toBe(false);
    expect(buckets.take('move', 0)).toBe(true);
  });
});
