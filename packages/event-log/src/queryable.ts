import type pg from 'pg';

/** A pool or one of its connections (inside a transaction): what a statement runs on. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * Runs `work` in a transaction on a connection of its own, committed when it resolves.
 * While a connection is checked out, node-postgres reports its loss (a server restart, a
 * reset) as an 'error' event on it and nowhere else: unheard, that event ends the process.
 * Heard, the statement under way fails as well, and the broken connection is destroyed
 * rather than handed back to the pool.
 */
export async function inTransaction<Result>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<Result>,
): Promise<Result> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    if (lost === undefined) {
      await client.query('ROLLBACK').catch((rollbackFailed: Error) => (lost = rollbackFailed));
    }
    throw error;
  } finally {
    client.off('error', onError);
    client.release(lost);
  }
}
