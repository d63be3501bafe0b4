import type pg from 'pg';

/** A pool or one of its connections (inside a transaction): what a statement runs on. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/** Runs `work` in a transaction on a connection of its own, committed when it resolves. */
export async function inTransaction<Result>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<Result>,
): Promise<Result> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
