/**
 * A fixed-bucket latency histogram: 0.1 ms buckets up to 2 s, one overflow bucket. Recording
 * is one array increment (the bots record a sample per movement record they match, hundreds of
 * thousands a second), and percentiles come from the cumulative counts.
 */

const RESOLUTION_MS = 0.1;
const MAX_MS = 2_000;
const BUCKETS = MAX_MS / RESOLUTION_MS;

export class LatencyHistogram {
  private readonly counts = new Uint32Array(BUCKETS + 1);
  count = 0;
  sum = 0;
  max = 0;

  record(ms: number): void {
    const v = ms < 0 ? 0 : ms;
    const i = Math.floor(v / RESOLUTION_MS);
    this.counts[i < BUCKETS ? i : BUCKETS]!++;
    this.count++;
    this.sum += v;
    if (v > this.max) this.max = v;
  }

  /** Adds another histogram's samples to this one. */
  merge(other: LatencyHistogram): void {
    for (let i = 0; i <= BUCKETS; i++) this.counts[i]! += other.counts[i]!;
    this.count += other.count;
    this.sum += other.sum;
    if (other.max > this.max) this.max = other.max;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = this.sum = this.max = 0;
  }

  /** The q-quantile (0..1) in ms, at the upper edge of its bucket; NaN without samples. */
  quantile(q: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i <= BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return i === BUCKETS ? this.max : (i + 1) * RESOLUTION_MS;
    }
    return this.max;
  }

  get mean(): number {
    return this.count === 0 ? NaN : this.sum / this.count;
  }

  summary(): LatencySummary {
    return {
      count: this.count,
      p50: round(this.quantile(0.5)),
      p90: round(this.quantile(0.9)),
      p99: round(this.quantile(0.99)),
      max: round(this.count === 0 ? NaN : this.max),
      mean: round(this.mean),
    };
  }
}

export interface LatencySummary {
  count: number;
  /** ms; null when there were no samples. */
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

function round(v: number): number | null {
  return Number.isFinite(v) ? Math.round(v * 10) / 10 : null;
}
