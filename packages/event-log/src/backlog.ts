import type { Queryable } from './queryable.js';
import { unfinished } from './status.js';

/** Unfinished events counted at most: the partial index of unfinished events reads them. */
export const BACKLOG_LIMIT = 100_000;

export interface AccountBacklog {
  accountId: string;
  queued: number;
  processing: number;
  /** When the account's oldest queued event was received; null when none is queued. */
  oldestQueuedAt: Date | null;
}

export interface Backlog {
  accounts: AccountBacklog[];
  /** More than BACKLOG_LIMIT events are unfinished: the counts stop there. */
  capped: boolean;
}

/**
 * The unfinished events of every account that has any: queued (waiting, parked or
 * between retries) and processing. One pass over at most BACKLOG_LIMIT rows of the
 * partial index of unfinished events, so its cost is about what a count of them costs.
 * The operators' queue state and the workers' backlog sampler both read it.
 */
export async function readBacklog(on: Queryable): Promise<Backlog> {
  const { rows } = await on.query<{
    account_id: string;
    queued: number;
    processing: number;
    oldest: Date | null;
    scanned: number;
  }>({
    name: 'read-backlog',
    text: `
      SELECT account_id,
             count(*) FILTER (WHERE status = 'queued')::int AS queued,
             count(*) FILTER (WHERE status = 'processing')::int AS processing,
             min(received_at) FILTER (WHERE status = 'queued') AS oldest,
             sum(count(*)) OVER ()::int AS scanned
      FROM (SELECT account_id, status, received_at FROM webhook_logs
            WHERE ${unfinished()} LIMIT $1) AS unfinished
      GROUP BY account_id`,
    values: [BACKLOG_LIMIT + 1],
  });
  return {
    accounts: rows.map((row) => ({
      accountId: row.account_id,
      queued: row.queued,
      processing: row.processing,
      oldestQueuedAt: row.oldest,
    })),
    capped: (rows[0]?.scanned ?? 0) > BACKLOG_LIMIT,
  };
}
