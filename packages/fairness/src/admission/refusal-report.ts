import type { RefusalReason } from '@ingest/contracts';
import type { Logger } from '@ingest/logger';

export { REFUSAL_REASONS, type RefusalReason } from '@ingest/contracts';

export interface RefusalReport {
  /** Counts a refusal, of the account's request when it is known. */
  refused(reason: RefusalReason, accountId?: string): void;
  /** Writes what is counted and not yet written (on close). */
  flush(): void;
}

export interface RefusalReportOptions {
  logger: Logger;
  /** At most one line this often, whatever the rate of refusals. */
  intervalMs: number;
  /** What else the line says: the admission state and the busiest tenants. */
  context: () => Record<string, unknown>;
  /** Counts each refusal elsewhere too (the API's metric). */
  onRefused?: (reason: RefusalReason, accountId?: string) => void;
}

/**
 * Refusals are counted, not logged one by one: a refusal must cost next to nothing, and a line
 * per refused request makes refusing the API's heaviest work. The first refusal after a quiet
 * spell is written at once; then one line an interval sums up the refusals since, by reason.
 */
export function createRefusalReport(options: RefusalReportOptions): RefusalReport {
  const counts = new Map<RefusalReason, number>();
  let lastWrittenAt = Number.NEGATIVE_INFINITY;
  let pending: NodeJS.Timeout | undefined;

  function write(): void {
    if (pending !== undefined) clearTimeout(pending);
    pending = undefined;
    if (counts.size === 0) return;
    lastWrittenAt = performance.now();
    options.logger.warn(
      { refused: Object.fromEntries(counts), ...options.context() },
      'refusing requests: the API is over its queueing target or an account over its limit',
    );
    counts.clear();
  }

  return {
    refused(reason, accountId) {
      options.onRefused?.(reason, accountId);
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
      const sinceLast = performance.now() - lastWrittenAt;
      if (sinceLast >= options.intervalMs) write();
      else if (pending === undefined) {
        pending = setTimeout(write, options.intervalMs - sinceLast);
        pending.unref();
      }
    },
    flush: write,
  };
}
