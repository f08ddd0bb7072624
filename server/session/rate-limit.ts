/**
 * Token buckets, one per rate class per connection. A bucket holds up to `burst` tokens and
 * gains `perSecond` tokens a second; each packet takes one. Time is an argument (ms, any
 * monotonic clock), so the policy is tested without waiting.
 */
import type { RateClass } from '../../shared/protocol/define.js';
import type { RateLimit } from '../config.js';

export class TokenBucket {
  private tokens: number;
  private last: number | undefined;

  constructor(private readonly limit: RateLimit) {
    this.tokens = limit.burst;
  }

  /** Takes one token at time `nowMs`; false when the bucket is empty. */
  take(nowMs: number): boolean {
    if (this.last !== undefined && nowMs > this.last) {
      this.tokens = Math.min(
        this.limit.burst,
        this.tokens + ((nowMs - this.last) * this.limit.perSecond) / 1000,
      );
    }
    if (this.last === undefined || nowMs > this.last) this.last = nowMs;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export class RateBuckets {
  /** Made on a class's first packet. A plain object: a Map's table per connection costs more than the buckets. */
  private readonly buckets: { [K in RateClass]?: TokenBucket } = {};

  constructor(private readonly limits: Readonly<Record<RateClass, RateLimit>>) {}

  take(rateClass: RateClass, nowMs: number): boolean {
    const bucket = (this.buckets[rateClass] ??= new TokenBucket(this.limits[rateClass]));
    return bucket.take(nowMs);
  }
}
