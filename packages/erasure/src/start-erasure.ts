import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { databaseFailureOf } from '@ingest/db';
import { failAccountEvents, inTransaction } from '@ingest/event-log';
import { deleteAccountArticles } from './articles.js';

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

/** Tries of the starting transaction that a deadlock or serialization failure ends. */
const CONFLICT_TRIES = 5;

/**
 * Starts erasing an account, in one transaction, so that from its commit:
 * - its keys are gone: the API refuses a publish with one (after API_KEY_CACHE_TTL_MS at
 *   most, for a key an API process had just checked);
 * - its unfinished events are failed, which fences them: a worker about to apply one
 *   finds it no longer in the state it read, and rolls its change back; events recorded
 *   later (through a key still cached) are skipped by every worker (see claims.ts);
 * - its articles and highlights are gone, so public reads answer 404 at once, with the
 *   categories and slug counters that only its articles used (articles.ts).
 * The rest goes in the workers' erasure rounds (erasure-round.ts). Undefined when there
 * is no such account.
 *
 * Workers lock a head's event, then its followers' as they record them: an account's
 * events cannot all be locked in their order, so a deadlock with a worker stays possible.
 * PostgreSQL ends one of the two; when it is this one, it starts again.
 */
export async function startErasure(
  pool: pg.Pool,
  request: ErasureRequest,
): Promise<StartedErasure | undefined> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await startOnce(pool, request);
    } catch (error) {
      if (tries >= CONFLICT_TRIES || databaseFailureOf(error) !== 'conflict') throw error;
    }
  }
}

async function startOnce(
  pool: pg.Pool,
  request: ErasureRequest,
): Promise<StartedErasure | undefined> {
  return inTransaction(pool, async (tx) => {
    // NO KEY UPDATE, not UPDATE: it serializes two erasures of one account but lets other
    // transactions insert rows that reference it (their foreign-key check takes KEY SHARE).
    // A worker holding one of the account's events and inserting its article would
    // otherwise wait on this lock while this waits on its event: a deadlock.
    const account = await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [
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
            highlights AS (DELETE FROM highlights WHERE account_id = $1 RETURNING 1)
       SELECT 'api_keys' AS table, count(*)::int AS rows FROM keys
       UNION ALL SELECT 'highlights', count(*)::int FROM highlights`,
      [request.accountId],
    );
    const counts = {
      ...Object.fromEntries(counted.rows.map((row) => [row.table, row.rows])),
      ...(await deleteAccountArticles(tx, request.accountId, null)),
    };
    const { rows } = await tx.query<{ started_at: Date }>(
      `INSERT INTO account_erasures (id, account_id, requested_by, operator_id, counts)
       VALUES ($1, $2, $3, $4, $5) RETURNING started_at`,
      [id, request.accountId, request.requestedBy, request.operatorId, JSON.stringify(counts)],
    );
    return { id, startedAt: rows[0]!.started_at, started: true };
  });
}
