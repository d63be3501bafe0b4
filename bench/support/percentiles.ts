/** The value below which `p` (0-1) of the sorted samples fall (nearest rank). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export function sortedSamples(samples: number[]): Float64Array {
  return Float64Array.from(samples).sort();
}

/** The median, the 99th percentile and the largest of sorted samples, in milliseconds. */
export function spreadMs(sorted: ArrayLike<number>): {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
} {
  return {
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
  };
}
