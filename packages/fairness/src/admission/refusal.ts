import type { Refused } from './fair-admission.js';
import type { RefusalReason } from './refusal-report.js';

/** The answer to a request refused before any work: a problem with these headers. */
export interface Refusal {
  reason: RefusalReason;
  code: 'RATE_LIMITED' | 'UNAVAILABLE';
  detail: string;
  headers: Record<string, string>;
}

/** The RateLimit-* headers (IETF draft) of a limit: its size, what is left, when it resets. */
export const rateLimitHeaders = (limit: number, remaining: number, resetSeconds: number) => ({
  'ratelimit-limit': String(limit),
  'ratelimit-remaining': String(remaining),
  'ratelimit-reset': String(resetSeconds),
});

/** A 429: nothing is left of `limit` until it resets, in `seconds`. */
const rateLimited = (reason: RefusalReason, detail: string, limit: number, seconds: number) => ({
  reason,
  code: 'RATE_LIMITED' as const,
  detail,
  headers: { 'retry-after': String(seconds), ...rateLimitHeaders(limit, 0, seconds) },
});

/** A rate limit's refusal: `what` (requests, events) past the limit named `name`. */
export const overLimit = (what: string, name: string, limit: number, seconds: number): Refusal =>
  rateLimited('rate_limit', `Too many ${what} (${name}); retry in ${seconds} s`, limit, seconds);

/**
 * Admission control's refusal, answered. Shares are in places; the headers count requests
 * like this one (a share of 64 places is 16 requests of cost 4 in flight at once).
 */
export function refusalOf(refused: Refused, cost: number): Refusal {
  const seconds = refused.retryAfterSeconds;
  if (refused.reason === 'overloaded') {
    return {
      reason: 'overloaded',
      code: 'UNAVAILABLE',
      detail: `The service is full; retry in ${seconds} s`,
      headers: { 'retry-after': String(seconds) },
    };
  }
  const share = Math.max(1, Math.floor(refused.share / cost));
  const held = Math.ceil(refused.held / cost);
  const detail = `The service is busy and this account (or address) has about ${held} requests like this one in flight, over its share of ${share}; retry in ${seconds} s`;
  return rateLimited('over_share', detail, share, seconds);
}
