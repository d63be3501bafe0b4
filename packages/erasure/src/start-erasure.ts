import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { failAccountEvents, inTransaction } from '@ingest/event-log';

export interface ErasureRequest {
  accountId: string;
  requestedBy: 'operator' | 'self';
  /** The operator who asked; null when the account asks for itself. */
  operatorId: string | null;
}

export interface StartedErasure {
  id: string;
  startedAt: Date;
  /** False when an erasure of the account was already under way: this is that one. */
  started: boolean;
}

/**
 * Starts erasing an account, in one transaction, so that from its commit:
 * - its keys are gone: the API refuses a publish with one (after API_KEY_CACHE_TTL_MS at
 *   most, for a key an API process had just checked);
 * - its unfinished events are failed, which fences them: a worker about to apply one
 *   finds it no longer in the state it read, and rolls its change back; events recorded
 *   later (through a key still cached) are skipped by every worker (see claims.ts);
 * - its articles and highlights are gone, so public reads answer 404 at once.
 * The rest goes in the workers' erasure rounds (erasure-round.ts). Undefined when there
 * is no such account.
 */
export async function startErasure(
  pool: pg.Pool,
  request: ErasureRequest,
): Promise<StartedErasure | undefined> {
  return inTransaction(pool, async (tx) => {
    const account = await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [
      request.accountId,
    ]);
    if (account.rowCount === 0) return undefined;
    const running = await tx.query<{ id: string; started_at: Date }>(
      'SELECT id, started_at FROM account_erasures WHERE account_id = $1 AND finished_at IS NULL',
      [request.accountId],
    );
    const under = running.rows[0];
    if (under !== undefined) return { id: under.id, startedAt: under.started_at, started: false };

    const id = uuidv7();
    await failAccountEvents(tx, request.accountId);
    const counted = await tx.query<{ table: string; rows: number }>(
      `WITH keys AS (DELETE FROM api_keys WHERE account_id = $1 RETURNING 1),
            highlights AS (DELETE FROM highlights WHERE account_id = $1 RETURNING 1),
            articles AS (DELETE FROM articles WHERE account_id = $1 RETURNING 1)
       SELECT 'api_keys' AS table, count(*)::int AS rows FROM keys
       UNION ALL SELECT 'highlights', count(*)::int FROM highlights
       UNION ALL SELECT 'articles', count(*)::int FROM articles`,
      [request.accountId],
    );
    const counts = Object.fromEntries(counted.rows.map((row) => [row.table, row.rows]));
    const { rows } = await tx.query<{ started_at: Date }>(
      `INSERT INTO account_erasures (id, account_id, requested_by, operator_id, counts)
       VALUES ($1, $2, $3, $4, $5) RETURNING started_at`,
      [id, request.accountId, request.requestedBy, request.operatorId, JSON.stringify(counts)],
    );
    return { id, startedAt: rows[0]!.started_at, started: true };
  });
}
