import type { Queryable } from './queryable.js';
import { unfinished } from './status.js';

/** The error an event of an account being erased is failed with, until its row goes. */
const ERASED = JSON.stringify({
  code: 'PROCESSING_FAILED',
  message: 'The account is being erased: the event is not applied',
});

/**
 * Fails an account's unfinished events and frees their places in line, locking them in id
 * order as workers lock the heads they apply (runs.ts). A worker records
 * an applied event only if it is still queued or processing, in the transaction of its
 * change (recordApplied), so one about to be applied rolls back instead.
 */
export async function failAccountEvents(on: Queryable, accountId: string): Promise<number> {
  const { rows } = await on.query<{ failed: number }>(
    `WITH locked AS MATERIALIZED (
       SELECT id FROM webhook_logs WHERE account_id = $1 AND ${unfinished()}
       ORDER BY id FOR UPDATE),
     failed AS (
       UPDATE webhook_logs SET status = 'failed', error = $2::jsonb, finished_at = now()
       WHERE id IN (SELECT id FROM locked) AND ${unfinished()} RETURNING 1),
     places AS (DELETE FROM pending_order_keys WHERE account_id = $1)
     SELECT count(*)::int AS failed FROM failed`,
    [accountId, ERASED],
  );
  return rows[0]?.failed ?? 0;
}

/**
 * Deletes up to `limit` of an account's events with their attempts, the slug lists of the
 * partitions they were in (the next partition upkeep lists those again, without them),
 * and up to `limit` of its Idempotency-Keys: one statement, in the caller's transaction.
 * Rows deleted, by table.
 */
export async function deleteAccountEvents(
  on: Queryable,
  accountId: string,
  limit: number,
): Promise<Record<string, number>> {
  const { rows } = await on.query<{ deleted: Record<string, number> }>(
    `WITH events AS (SELECT id FROM webhook_logs WHERE account_id = $1 LIMIT $2),
     attempts AS (
       DELETE FROM event_attempts WHERE event_id IN (SELECT id FROM events) RETURNING 1),
     lists AS (
       DELETE FROM webhook_log_key_summaries s
       WHERE EXISTS (SELECT 1 FROM events e
                     WHERE e.id >= COALESCE(s.from_id, '00000000-0000-0000-0000-000000000000')
                       AND e.id < s.to_id)
       RETURNING 1),
     logs AS (DELETE FROM webhook_logs WHERE id IN (SELECT id FROM events) RETURNING 1),
     keys AS (
       DELETE FROM idempotency_keys WHERE ctid IN (
         SELECT ctid FROM idempotency_keys WHERE account_id = $1 LIMIT $2)
       RETURNING 1),
     places AS (DELETE FROM pending_order_keys WHERE account_id = $1 RETURNING 1)
     SELECT jsonb_build_object(
       'webhook_logs', (SELECT count(*) FROM logs),
       'event_attempts', (SELECT count(*) FROM attempts),
       'slug_lists', (SELECT count(*) FROM lists),
       'idempotency_keys', (SELECT count(*) FROM keys),
       'pending_order_keys', (SELECT count(*) FROM places)) AS deleted`,
    [accountId, limit],
  );
  return rows[0]?.deleted ?? {};
}
