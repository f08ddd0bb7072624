/**
 * Reading a server's /metrics (Prometheus text format), for the benchmarks and the fuzz and
 * soak tools: sums of counters over their labels, and the tick histogram's quantiles from the
 * change in its cumulative buckets between two scrapes.
 *
 *   name{label="v",...} value        one sample a line; '#' lines are comments
 *   name_bucket{le="0.05"} 1234      cumulative: observations <= le
 */

export type Samples = Map<string, { labels: string; value: number }[]>;

export function parseMetrics(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const list = out.get(m[1]!) ?? [];
    list.push({ labels: m[2] ?? '', value: Number(m[3]) });
    out.set(m[1]!, list);
  }
  return out;
}

/** The sum of a metric over all its label sets (0 when absent). */
export function total(s: Samples, name: string): number {
  return (s.get(name) ?? []).reduce((a, x) => a + (Number.isFinite(x.value) ? x.value : 0), 0);
}

export interface Buckets {
  /** Upper bounds, ascending, +Inf last. */
  le: number[];
  /** Cumulative counts per bound. */
  counts: number[];
  count: number;
  sum: number;
}

export function histogram(s: Samples, name: string): Buckets {
  const rows = (s.get(`${name}_bucket`) ?? []).map((r) => {
    const le = /le="([^"]+)"/.exec(r.labels)?.[1] ?? '+Inf';
    return { le: le === '+Inf' ? Infinity : Number(le), value: r.value };
  });
  rows.sort((a, b) => a.le - b.le);
  return {
    le: rows.map((r) => r.le),
    counts: rows.map((r) => r.value),
    count: total(s, `${name}_count`),
    sum: total(s, `${name}_sum`),
  };
}

/** Observations between two scrapes of the same histogram. */
export function delta(before: Buckets, after: Buckets): Buckets {
  return {
    le: after.le,
    counts: after.counts.map((c, i) => c - (before.counts[i] ?? 0)),
    count: after.count - before.count,
    sum: after.sum - before.sum,
  };
}

/**
 * The q-quantile, interpolated linearly inside its bucket (as Prometheus' histogram_quantile
 * does); beyond the last finite bound it is that bound. NaN without observations.
 */
export function quantile(h: Buckets, q: number): number {
  if (h.count <= 0) return NaN;
  const rank = q * h.count;
  let prevLe = 0;
  let prevCount = 0;
  for (let i = 0; i < h.le.length; i++) {
    const le = h.le[i]!;
    const c = h.counts[i]!;
    if (c >= rank) {
      if (!Number.isFinite(le)) return prevLe;
      const inBucket = c - prevCount;
      return inBucket <= 0 ? le : prevLe + ((le - prevLe) * (rank - prevCount)) / inBucket;
    }
    prevLe = le;
    prevCount = c;
  }
  return prevLe;
}

/** The upper bound of the highest bucket that gained observations (the max is at most this). */
export function maxBound(h: Buckets): number {
  let prev = 0;
  for (let i = 0; i < h.le.length; i++) {
    if (h.counts[i]! >= h.count) return h.le[i]!;
    prev = h.le[i]!;
  }
  return prev;
}
