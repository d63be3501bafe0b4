import {
  deleteAccountEvents,
  failAccountEvents,
  inTransaction,
  type Queryable,
} from '@ingest/event-log';
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';
import { deleteAccountArticles } from './articles.js';
import { addCounts } from './erasure-counts.js';
import { sweep } from './sweep.js';

export interface ErasureDeps {
  /** Connections that are sessions (not through a transaction-mode pooler): see `direct`. */
  pool: pg.Pool;
  redis: Redis | Cluster;
  /** The deployment's Redis prefix (REDIS_KEY_PREFIX). */
  keyPrefix: string;
  /** Every queue whose jobs may name an account: the content shards. */
  queues: readonly Queue[];
  /** The webhook-deliveries queue, whose jobs name a delivery (delivery-jobs.ts). */
  deliveryQueue: Queue;
  /** Where the event log's archives are written (EVENT_LOG_ARCHIVE_DIR), if anywhere. */
  archiveDir: string | null;
  /**
   * How long after its start an erasure waits before its last sweep: longer than an API
   * process caches a key (API_KEY_CACHE_TTL_MS) plus its longest request, so that no
   * publish checked before the start is still to be recorded.
   */
  settleMs: number;
  /** Rows deleted per statement. */
  batchRows: number;
}

export interface ErasureProgress {
  id: string;
  finished: boolean;
  /** Rows deleted this round, by table. */
  deleted: Record<string, number>;
}

/**
 * One batch of each table's rows of the account, in one statement: all but the event log's
 * (deleteAccountEvents) and the articles' (deleteAccountArticles).
 */
const BATCH = `
  WITH deliveries AS (
    DELETE FROM webhook_deliveries WHERE id IN (
      SELECT d.id FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
      WHERE m.account_id = $1 LIMIT $2)
    RETURNING 1
  ),
  messages AS (
    DELETE FROM webhook_messages WHERE id IN (
      SELECT id FROM webhook_messages WHERE account_id = $1 LIMIT $2)
    RETURNING 1
  ),
  endpoints AS (
    DELETE FROM webhook_endpoints WHERE id IN (
      SELECT id FROM webhook_endpoints WHERE account_id = $1 LIMIT $2)
    RETURNING 1
  ),
  shares AS (
    DELETE FROM account_share_changes WHERE id IN (
      SELECT id FROM account_share_changes WHERE account_id = $1 LIMIT $2)
    RETURNING 1
  ),
  keys AS (DELETE FROM api_keys WHERE account_id = $1 RETURNING 1),
  highlights AS (
    DELETE FROM highlights WHERE id IN (
      SELECT id FROM highlights WHERE account_id = $1 LIMIT $2)
    RETURNING 1
  )
  SELECT jsonb_build_object(
    'webhook_deliveries', (SELECT count(*) FROM deliveries),
    'webhook_messages', (SELECT count(*) FROM messages),
    'webhook_endpoints', (SELECT count(*) FROM endpoints),
    'account_share_changes', (SELECT count(*) FROM shares),
    'api_keys', (SELECT count(*) FROM keys),
    'highlights', (SELECT count(*) FROM highlights)
  ) AS deleted`;

/**
 * What an erased operator's share changes on other accounts hold instead of their email:
 * not an address, so it names no one, and the column stays required, so the account page
 * keeps its shape. Their `operator_id` goes null with the account (its foreign key).
 */
const ERASED_OPERATOR = '(erased operator)';

async function deleteBatch(
  tx: Queryable,
  erasureId: string,
  accountId: string,
  rows: number,
): Promise<Record<string, number>> {
  // Events recorded since the start, through a key an API still had cached, fail too.
  await failAccountEvents(tx, accountId);
  const events = await deleteAccountEvents(tx, accountId, rows);
  const { rows: result } = await tx.query<{ deleted: Record<string, number> }>(BATCH, [
    accountId,
    rows,
  ]);
  const articles = await deleteAccountArticles(tx, accountId, rows);
  const deleted = { ...events, ...result[0]?.deleted, ...articles };
  await addCounts(tx, erasureId, deleted);
  return deleted;
}

/**
 * Ends the erasure: the account's row goes (with anything a cascade still reaches), its
 * email leaves the share changes it made as an operator (counted as
 * `account_share_changes.operator_email`), an operator id it left on other erasure records
 * is cleared, and this record forgets the account.
 */
async function finish(deps: ErasureDeps, erasureId: string, accountId: string) {
  await inTransaction(deps.pool, async (tx) => {
    await failAccountEvents(tx, accountId);
    const events = await deleteAccountEvents(tx, accountId, deps.batchRows);
    const changes = await tx.query(
      'UPDATE account_share_changes SET operator_email = $2 WHERE operator_id = $1',
      [accountId, ERASED_OPERATOR],
    );
    await tx.query('DELETE FROM accounts WHERE id = $1', [accountId]);
    await tx.query('UPDATE account_erasures SET operator_id = NULL WHERE operator_id = $1', [
      accountId,
    ]);
    await addCounts(tx, erasureId, {
      ...events,
      'account_share_changes.operator_email': changes.rowCount ?? 0,
    });
    await tx.query(
      'UPDATE account_erasures SET account_id = NULL, finished_at = now() WHERE id = $1',
      [erasureId],
    );
  });
}

const sum = (deleted: Record<string, number>) =>
  Object.values(deleted).reduce((total, rows) => total + rows, 0);

/**
 * Works on the oldest unfinished erasure, if another process is not already: deletes the
 * account's rows batch by batch until none is left or `maxBatches` ran; once none is left
 * and the erasure has settled (ErasureDeps.settleMs), removes what Redis and the archives
 * hold of the account (sweep.ts) and finishes, unless a worker held a job the sweep had to
 * remove: then a later round sweeps again. Every step can run again: a crash anywhere
 * resumes at the next round. Undefined when there is no erasure to work on.
 */
export async function continueErasure(
  deps: ErasureDeps,
  maxBatches = 20,
): Promise<ErasureProgress | undefined> {
  const client = await deps.pool.connect();
  try {
    const { rows } = await client.query<{ id: string; account_id: string; started_at: Date }>(
      `SELECT id, account_id, started_at FROM account_erasures
       WHERE finished_at IS NULL AND pg_try_advisory_lock(hashtext('erasure:' || id::text))
       ORDER BY started_at LIMIT 1`,
    );
    const erasure = rows[0];
    if (erasure === undefined) return undefined;
    try {
      return await work(deps, erasure.id, erasure.account_id, erasure.started_at, maxBatches);
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext('erasure:' || $1::text))", [
        erasure.id,
      ]);
    }
  } finally {
    client.release();
  }
}

async function work(
  deps: ErasureDeps,
  id: string,
  accountId: string,
  startedAt: Date,
  maxBatches: number,
): Promise<ErasureProgress> {
  const deleted: Record<string, number> = {};
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const round = await inTransaction(deps.pool, (tx) =>
      deleteBatch(tx, id, accountId, deps.batchRows),
    );
    for (const [table, rows] of Object.entries(round))
      deleted[table] = (deleted[table] ?? 0) + rows;
    if (sum(round) === 0) {
      if (Date.now() - startedAt.getTime() < deps.settleMs) break;
      if (!(await sweep(deps, id, accountId))) break;
      await finish(deps, id, accountId);
      return { id, finished: true, deleted };
    }
  }
  return { id, finished: false, deleted };
}
