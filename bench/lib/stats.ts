/** Latency summaries (nearest-rank percentiles over every sample; no histogram bucketing). */

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export const emptySummary: LatencySummary = Object.freeze({ count: 0, mean: NaN, p50: NaN, p90: NaN, p99: NaN, max: NaN });

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(values: ArrayLike<number>): LatencySummary {
  if (values.length === 0) return { ...emptySummary };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    mean: sum / sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
  };
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function roundSummary(s: LatencySummary): LatencySummary {
  return { count: s.count, mean: round(s.mean), p50: round(s.p50), p90: round(s.p90), p99: round(s.p99), max: round(s.max) };
}
