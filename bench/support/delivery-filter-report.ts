// The deliveries phase's filter rows in the run's table (issue 46), beside its other rows.
import type { DeliveryFilterResult } from '../phases/delivery-filter.js';
import type { MessageShare } from './delivery-queries.js';
import { perSecond, ratio } from './format.js';

/** A filter passing 1 message in 100 keeps at least this much of the drain without endpoints. */
export const FILTER_DRAIN_TARGET = 0.95;

type Add = (figure: string, service: string, reference: string, r: string, target?: string) => void;

const percent = (n: number) => (Number.isFinite(n) ? `${(n * 100).toFixed(1)}%` : 'n/a');
const thousands = (n: number) => n.toLocaleString('en-US');
const shareOf = ({ messages, applied }: MessageShare) => messages / applied;

/**
 * The filtered drain against the drain without endpoints right before it (the median of
 * the rounds); the unfiltered one against `reference`, the phase's drain without endpoints
 * (the mean of its first and last).
 */
export function deliveryFilterRows(add: Add, result: DeliveryFilterResult, reference: number) {
  const { filtered, unfiltered, expectedShare, rounds } = result;
  const without = `${perSecond(reference)} no endpoints`;
  const paired = filtered.rate / result.ratio;
  const met = result.ratio >= FILTER_DRAIN_TARGET;
  add(
    `Content drain, 1 endpoint/account, its filter passing ${percent(expectedShare)}: 1 worker (both queues), median of ${rounds.length} rounds`,
    perSecond(filtered.rate),
    `${perSecond(paired)} no endpoints, right before`,
    ratio(filtered.rate, paired),
    `≥ ${FILTER_DRAIN_TARGET} ${met ? 'ok' : 'MISSED'}`,
  );
  add(
    'Content drain, 1 endpoint/account, unfiltered: 1 worker (both queues)',
    perSecond(unfiltered.rate),
    without,
    ratio(unfiltered.rate, reference),
  );
  const share = (s: MessageShare) =>
    `${percent(shareOf(s))} (${thousands(s.messages)} of ${thousands(s.applied)})`;
  const passed = shareOf(filtered.share) / shareOf(unfiltered.share);
  add(
    'Filtered endpoint: messages written ÷ events applied',
    share(filtered.share),
    `${share(unfiltered.share)} unfiltered`,
    Number.isFinite(passed) ? passed.toPrecision(2) : 'n/a',
  );
}
