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
  private readonly buckets = new Map<RateClass, TokenBucket>();

  constructor(private readonly limits: Readonly<Record<RateClass, RateLimit>>) {}

  take(rateClass: RateClass, nowMs: number): boolean {
    let bucket = this.buckets.get(rateClass);
    if (!bucket) {
      bucket = new TokenBucket(this.limits[rateClass]);
      this.buckets.set(rateClass, bucket);
    }
    return bucket.take(nowMs);
  }
}
