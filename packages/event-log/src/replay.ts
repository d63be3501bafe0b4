import type { Database, Prisma } from '@ingest/db';

export interface Requeued {
  id: string;
  event: string | null;
  requestId: string;
  accountId: string;
}

/**
 * Sends failed events matching `where` (conditions on webhook_logs' columns) back to
 * `queued`, oldest first, at most `limit`: same id, same receipt (which counts the
 * replay), and the same place in their lines, which they take again. The status change
 * is the guard: two operators replaying at once replay an event once, and it is still
 * applied once. Returns what the caller must queue again.
 */
export async function replayFailed(
  db: Database,
  where: Prisma.Sql,
  limit: number,
): Promise<Requeued[]> {
  return db.prisma.$queryRaw<Requeued[]>`
    WITH replayed AS (
      UPDATE webhook_logs
      SET status = 'queued', finished_at = NULL, result = NULL,
          replays = replays + 1, last_replayed_at = now()
      WHERE id IN (
        SELECT id FROM webhook_logs WHERE status = 'failed' AND ${where}
        ORDER BY sequence LIMIT ${limit} FOR UPDATE SKIP LOCKED
      )
      RETURNING id, event, request_id, account_id, order_keys, sequence
    ),
    placed AS (
      INSERT INTO pending_order_keys (account_id, key, sequence, event_id)
      SELECT account_id, unnest(order_keys), sequence, id FROM replayed
      ON CONFLICT DO NOTHING
    )
    SELECT id, event, request_id AS "requestId", account_id AS "accountId" FROM replayed`;
}
