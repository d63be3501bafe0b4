import type pg from 'pg';
import { withConnection } from '../queryable.js';

/** One advisory lock for all DDL on the event log's partitions, in every process. */
const PARTITION_DDL_LOCK = "hashtextextended('ingest:event-log-partitions', 0)";

/** How long DDL waits for a lock before giving up until the next round. */
const DDL_LOCK_TIMEOUT = '2s';

/**
 * Runs `work` on a connection of its own holding the partition-maintenance lock, or
 * returns undefined at once when another process holds it. A session lock, because
 * DETACH ... CONCURRENTLY cannot run inside a transaction: `pool` must reach PostgreSQL
 * itself, not a transaction-mode pooler (Database.direct). DDL waits at most
 * DDL_LOCK_TIMEOUT for its table locks, so the API's inserts never queue behind it for
 * long: it fails, and the next round tries again.
 */
export async function withPartitionLock<Result>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<Result>,
): Promise<Result | undefined> {
  return withConnection(pool, async (client, health) => {
    const { rows } = await client.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(${PARTITION_DDL_LOCK}) AS locked`,
    );
    if (rows[0]?.locked !== true) return undefined;
    try {
      await client.query(`SET lock_timeout = '${DDL_LOCK_TIMEOUT}'`);
      return await work(client);
    } finally {
      // A lost connection took its session, and the lock, with it.
      if (!health.isLost()) {
        await client.query('RESET lock_timeout');
        await client.query(`SELECT pg_advisory_unlock(${PARTITION_DDL_LOCK})`);
      }
    }
  });
}
