/** Nearest-rank percentile (`p` in 0–100) of `values`; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Median of `values`; NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median and p99 of a sample, with its size. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p99: number;
}

/** Summarizes a sample. */
export function summarize(values: readonly number[]): Summary {
  return { n: values.length, median: median(values), p99: percentile(values, 99) };
}

/** Rounds to `digits` decimals, for reports. */
export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
