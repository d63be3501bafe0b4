import type { LoadResult } from './fixed-rate-load.js';

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');

/** A rate as the table shows it: `1234/s`, or n/a when there is none. */
export const perSecond = (n: number) => (Number.isFinite(n) ? `${Math.round(n)}/s` : 'n/a');

/** `a / b` to two decimals, or n/a when it is not a number. */
export const ratio = (a: number, b: number) =>
  b > 0 && Number.isFinite(a / b) ? (a / b).toFixed(2) : 'n/a';

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

/** A rate a second, with a decimal below 10/s: a hot slug's rate can be 0.7/s. */
export const fineRate = (n: number) =>
  Number.isFinite(n) ? `${n < 10 ? n.toFixed(1) : Math.round(n)}/s` : 'n/a';

/** How the report and the notes name a hot-slug burst. */
export const burstName = (slugs: number) => (slugs === 1 ? 'Hot slug ×1' : `Hot slugs ×${slugs}`);
