import type pg from 'pg';

/** A pool or one of its connections (inside a transaction): what a statement runs on. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

export interface ConnectionHealth {
  isLost(): boolean;
  /** Destroys the connection rather than handing it back (a statement left it unusable). */
  lose(error: Error): void;
}

/**
 * Runs `work` on a connection of its own, handed back to the pool after. While a
 * connection is checked out, node-postgres reports its loss (a server restart, a reset) as
 * an 'error' event on it and nowhere else: unheard, that event ends the process. Heard, the
 * statement under way fails as well, and the broken connection is destroyed rather than
 * handed back. Through `health`, `work` learns whether the connection is still usable,
 * and can declare it unusable itself.
 */
export async function withConnection<Result>(
  pool: pg.Pool,
  work: (client: pg.PoolClient, health: ConnectionHealth) => Promise<Result>,
): Promise<Result> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  try {
    return await work(client, {
      isLost: () => lost !== undefined,
      lose: (error) => (lost ??= error),
    });
  } finally {
    client.off('error', onError);
    client.release(lost);
  }
}

/** Runs `work` in a transaction on a connection of its own, committed when it resolves. */
export async function inTransaction<Result>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<Result>,
): Promise<Result> {
  return withConnection(pool, async (client, health) => {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (!health.isLost()) {
        await client
          .query('ROLLBACK')
          .catch((rollbackFailed: Error) => health.lose(rollbackFailed));
      }
      throw error;
    }
  });
}
