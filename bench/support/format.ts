import type { LoadResult } from './fixed-rate-load.js';

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');

export function statusSummary(byStatus: Record<string, number>): string {
  return Object.entries(byStatus)
    .map(([code, n]) => `${code}:${n}`)
    .join(' ');
}

/** One line about a load run, for the progress log. */
export function describeLoad(load: LoadResult): string {
  const { p50, p99, p999 } = load.latencyMs;
  const errors = load.errors > 0 ? ` errors:${load.errors}` : '';
  return (
    `${String(load.targetRate).padStart(5)}/s -> ${Math.round(load.achievedRate)}/s ` +
    `p50 ${ms(p50)} p99 ${ms(p99)} p99.9 ${ms(p999)} ms  ${statusSummary(load.byStatus)}${errors}`
  );
}
