import { createHash } from 'node:crypto';
import type { Prisma } from '@ingest/db';
import { withConnection } from '@ingest/event-log';
import type pg from 'pg';

/**
 * Runs a read that asks every partition of the log (nothing bounds its ids) as a named
 * statement with a generic plan: planned once per connection, then only executed.
 *
 * Why: the pool forces custom plans (packages/db, client.ts), which prune partitions for
 * statements bounded by id. A read with no bound prunes nothing, and planning every
 * partition at each call costs more than running the statement. The generic plan's row
 * estimates are the defaults, which exceed JIT's cost threshold, so JIT is off for the
 * statement too.
 *
 * The statement must keep the generic plan on the intended index whatever the values,
 * e.g. by fencing the indexed filter in a MATERIALIZED CTE: unfenced, a generic plan with
 * an unknown LIMIT walks the newest-first index.
 */
export async function readEveryPartition<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  statement: Prisma.Sql,
): Promise<Row[]> {
  // The name is the text's: one plan per shape of the statement (which filters it has).
  const name = `every-partition-${createHash('sha256').update(statement.text).digest('hex').slice(0, 24)}`;
  return withConnection(pool, async (client, health) => {
    try {
      // One round trip for the three: the transaction only scopes the two settings.
      await client.query(
        'BEGIN READ ONLY; SET LOCAL plan_cache_mode = force_generic_plan; SET LOCAL jit = off',
      );
      const { rows } = await client.query<Row>({
        name,
        text: statement.text,
        values: statement.values,
      });
      return rows;
    } finally {
      // Nothing was written: ending it either way resets the settings.
      if (!health.isLost())
        await client.query('ROLLBACK').catch((error: Error) => health.lose(error));
    }
  });
}
