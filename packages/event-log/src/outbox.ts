import type { Queryable } from './queryable.js';
import { unfinished } from './status.js';

export interface Unfinished {
  id: string;
  event: string | null;
  requestId: string;
  /** Whose event it is: its job's place in the fair order. */
  accountId: string;
}

/**
 * Unfinished events received more than `olderThanMs` ago, oldest first: those the outbox
 * reconciler checks are in the queue. Served by the partial index on unfinished events.
 */
export async function unfinishedOlderThan(
  on: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<Unfinished[]> {
  const { rows } = await on.query<Unfinished>({
    name: 'unfinished-older-than',
    text: `SELECT id, event, request_id AS "requestId", account_id AS "accountId" FROM webhook_logs
           WHERE ${unfinished()} AND received_at < now() - make_interval(secs => $1)
           ORDER BY sequence LIMIT $2`,
    values: [olderThanMs / 1000, limit],
  });
  return rows;
}

export async function isUnfinished(on: Queryable, eventId: string): Promise<boolean> {
  const { rows } = await on.query({
    name: 'is-unfinished',
    text: `SELECT 1 FROM webhook_logs WHERE id = $1::uuid AND ${unfinished()}`,
    values: [eventId],
  });
  return rows.length > 0;
}
