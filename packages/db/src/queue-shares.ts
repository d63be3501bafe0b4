import type { AccountShare } from '@ingest/contracts';
import type pg from 'pg';

/**
 * The accounts whose share is not the default (weight 1, no cap), by id: a few rows, read
 * through a partial index, so that every process can hold them all and ask often.
 */
export async function readCustomShares(pool: pg.Pool): Promise<Map<string, AccountShare>> {
  const { rows } = await pool.query<AccountShare & { id: string }>({
    name: 'custom-queue-shares',
    text: `SELECT id, queue_weight AS weight, max_in_flight AS "maxInFlight"
           FROM accounts WHERE queue_weight <> 1 OR max_in_flight IS NOT NULL`,
  });
  return new Map(rows.map(({ id, ...share }) => [id, share]));
}
