/** How a call is retried. */
export interface RetryOptions {
  /** Sends in all, the first included (default 6). 1 turns retries off. */
  attempts?: number;
  /** The first back-off, doubled on each retry (default 250 ms). */
  baseDelayMs?: number;
  /** No single wait is longer, Retry-After included (default 30 s). */
  maxDelayMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseDelayMs: 250, maxDelayMs: 30_000 };

/**
 * Seconds or an HTTP date, as Retry-After may say (RFC 9110), in milliseconds from now;
 * undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry number `retry` (1 for the first): what Retry-After asks when the
 * service said, plus a little jitter so that a fleet of bots told the same thing does not
 * come back in the same millisecond; else exponential back-off with full jitter (a random
 * wait up to the doubled delay), which spreads retries best (AWS's "Exponential Backoff
 * and Jitter"). Never more than maxDelayMs.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  retryAfter: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfter !== undefined) {
    return Math.min(policy.maxDelayMs, retryAfter + random() * policy.baseDelayMs);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return random() * ceiling;
}

const abortError = (signal: AbortSignal | undefined): Error =>
  signal?.reason instanceof Error ? signal.reason : new Error('The call was aborted');

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
