import { eraseAccountFromArchives } from '@ingest/event-archive';
import {
  deleteAccountEvents,
  failAccountEvents,
  inTransaction,
  type Queryable,
} from '@ingest/event-log';
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';
import { eraseRedisTraces } from './redis-traces.js';

export interface ErasureDeps {
  /** Connections that are sessions (not through a transaction-mode pooler): see `direct`. */
  pool: pg.Pool;
  redis: Redis | Cluster;
  /** The deployment's Redis prefix (REDIS_KEY_PREFIX). */
  keyPrefix: string;
  /** Every queue whose jobs may name an account: the content shards. */
  queues: readonly Queue[];
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
 * One batch of each table's rows of the account outside the event log (which
 * deleteAccountEvents deletes), in one statement.
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
  ),
  articles AS (
    DELETE FROM articles WHERE id IN (
      SELECT id FROM articles WHERE account_id = $1 LIMIT $2)
    RETURNING 1
  )
  SELECT jsonb_build_object(
    'webhook_deliveries', (SELECT count(*) FROM deliveries),
    'webhook_messages', (SELECT count(*) FROM messages),
    'webhook_endpoints', (SELECT count(*) FROM endpoints),
    'account_share_changes', (SELECT count(*) FROM shares),
    'api_keys', (SELECT count(*) FROM keys),
    'highlights', (SELECT count(*) FROM highlights),
    'articles', (SELECT count(*) FROM articles)
  ) AS deleted`;

/** Adds `deleted` to the erasure's counts, table by table. */
const ADD_COUNTS = `
  UPDATE account_erasures SET counts = (
    SELECT jsonb_object_agg(key, COALESCE((counts ->> key)::int, 0) + COALESCE((($2::jsonb) ->> key)::int, 0))
    FROM (SELECT jsonb_object_keys(counts || $2::jsonb) AS key) AS keys)
  WHERE id = $1`;

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
  const deleted = { ...events, ...result[0]?.deleted };
  await tx.query(ADD_COUNTS, [erasureId, JSON.stringify(deleted)]);
  return deleted;
}

/**
 * Ends the erasure: the account's row goes (with anything a cascade still reaches), an
 * operator id it left on other erasure records is cleared, and this record forgets the
 * account.
 */
async function finish(deps: ErasureDeps, erasureId: string, accountId: string, extra: object) {
  await inTransaction(deps.pool, async (tx) => {
    await failAccountEvents(tx, accountId);
    await deleteAccountEvents(tx, accountId, deps.batchRows);
    await tx.query('DELETE FROM accounts WHERE id = $1', [accountId]);
    await tx.query('UPDATE account_erasures SET operator_id = NULL WHERE operator_id = $1', [
      accountId,
    ]);
    await tx.query(
      `UPDATE account_erasures
       SET account_id = NULL, finished_at = now(), counts = counts || $2::jsonb
       WHERE id = $1`,
      [erasureId, JSON.stringify(extra)],
    );
  });
}

const sum = (deleted: Record<string, number>) =>
  Object.values(deleted).reduce((total, rows) => total + rows, 0);

/**
 * Works on the oldest unfinished erasure, if another process is not already: deletes the
 * account's rows batch by batch until none is left or `maxBatches` ran; once none is left
 * and the erasure has settled (ErasureDeps.settleMs), removes what Redis and the archives
 * hold of the account and finishes. Every step can run again: a crash anywhere resumes
 * at the next round. Undefined when there is no erasure to work on.
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
      const redis = await eraseRedisTraces(deps.redis, deps.keyPrefix, deps.queues, accountId);
      const archives =
        deps.archiveDir === null ? {} : await eraseAccountFromArchives(deps.archiveDir, accountId);
      if (Object.keys(archives).length > 0) {
        await deps.pool.query(
          'UPDATE account_erasures SET archives = archives || $2::jsonb WHERE id = $1',
          [id, JSON.stringify(archives)],
        );
      }
      await finish(deps, id, accountId, {
        redis_keys: redis.keys,
        redis_members: redis.members,
        redis_jobs: redis.jobs,
      });
      return { id, finished: true, deleted };
    }
  }
  return { id, finished: false, deleted };
}
