import { inTransaction } from '@ingest/event-log';
import type pg from 'pg';

export interface ExpiredMessages {
  messages: number;
  deliveries: number;
}

export interface MessageExpiry {
  /** WEBHOOK_RETENTION_DAYS: messages older than this many days go; 0 keeps everything. */
  retentionDays: number;
  /** Messages one transaction deletes at most. */
  batchSize?: number;
  /** Transactions one call makes at most; a backlog takes several calls. */
  batchesPerCall?: number;
}

const BATCH_SIZE = 1_000;
const BATCHES_PER_CALL = 5;

/**
 * Deletes outgoing webhook messages older than the retention (by `created_at`, oldest
 * first) with their deliveries, a bounded number per call. A message with a delivery still
 * pending or held stays until that delivery succeeds or fails. Safe in every worker process at
 * once: each skips the messages another has locked.
 */
export async function expireWebhookMessages(
  pool: pg.Pool,
  { retentionDays, batchSize = BATCH_SIZE, batchesPerCall = BATCHES_PER_CALL }: MessageExpiry,
): Promise<ExpiredMessages> {
  const total: ExpiredMessages = { messages: 0, deliveries: 0 };
  if (retentionDays === 0) return total;
  for (let batch = 0; batch < batchesPerCall; batch += 1) {
    const { chosen, ...deleted } = await expireBatch(pool, retentionDays, batchSize);
    total.messages += deleted.messages;
    total.deliveries += deleted.deliveries;
    if (chosen < batchSize) break;
  }
  return total;
}

/**
 * One short transaction of two statements. The first locks a batch of expired messages
 * without a pending delivery; the lock keeps a resend (admin deliveries in apps/api) from
 * adding a delivery to them until the transaction ends. The second checks again under a
 * snapshot taken after the lock, so that a resend committed in between keeps its message,
 * and deletes the rest. It deletes their deliveries itself, rather than leaving them to
 * the foreign key's cascade, to count them in the same statement.
 */
async function expireBatch(
  pool: pg.Pool,
  retentionDays: number,
  batchSize: number,
): Promise<ExpiredMessages & { chosen: number }> {
  return inTransaction(pool, async (client) => {
    const chosen = await client.query<{ id: string }>({
      name: 'choose-expired-webhook-messages',
      text: `SELECT m.id FROM webhook_messages m
             WHERE m.created_at < now() - make_interval(days => $1)
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                               WHERE d.message_id = m.id AND d.status IN ('pending', 'held'))
             ORDER BY m.created_at
             LIMIT $2
             FOR UPDATE OF m SKIP LOCKED`,
      values: [retentionDays, batchSize],
    });
    const ids = chosen.rows.map((row) => row.id);
    if (ids.length === 0) return { chosen: 0, messages: 0, deliveries: 0 };
    const { rows } = await client.query<ExpiredMessages>({
      name: 'delete-expired-webhook-messages',
      text: `WITH doomed AS (
               SELECT c.id FROM unnest($1::uuid[]) AS c(id)
               WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                                 WHERE d.message_id = c.id AND d.status IN ('pending', 'held'))
             ), deliveries AS (
               DELETE FROM webhook_deliveries d USING doomed
               WHERE d.message_id = doomed.id RETURNING 1
             ), messages AS (
               DELETE FROM webhook_messages m USING doomed
               WHERE m.id = doomed.id RETURNING 1
             )
             SELECT (SELECT count(*) FROM messages)::int AS messages,
                    (SELECT count(*) FROM deliveries)::int AS deliveries`,
      values: [ids],
    });
    return {
      chosen: ids.length,
      messages: rows[0]?.messages ?? 0,
      deliveries: rows[0]?.deliveries ?? 0,
    };
  });
}
