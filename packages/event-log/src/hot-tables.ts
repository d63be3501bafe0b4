import type { Queryable } from './queryable.js';

/**
 * Tables written and deleted at the rate of events: a row per event waiting in its line,
 * a row per Idempotency-Key until it expires. Their live rows stay few, but each delete
 * leaves a dead row (and index entries) behind until a vacuum, and the statements on the
 * accept and apply paths walk their indexes: left to pile up, as they do where autovacuum
 * is off or lags behind, the dead rows make every claim slower.
 */
export const HOT_TABLES = ['pending_order_keys', 'idempotency_keys'] as const;

/**
 * A hot table is vacuumed once its dead rows outnumber this and a fifth of its live ones:
 * autovacuum's own scale factor, with a floor that keeps a small table from being
 * vacuumed every round.
 */
export const DEAD_ROWS_FLOOR = 1_000;
const DEAD_SHARE = 0.2;

/**
 * Vacuums the hot tables holding too many dead rows (counted by PostgreSQL's statistics,
 * which it keeps with autovacuum off too), and returns their names. SKIP_LOCKED: a table
 * another worker is vacuuming is left to it. Cheap when there is nothing to do: one read
 * of the statistics.
 */
export async function vacuumHotTables(on: Queryable): Promise<string[]> {
  const { rows } = await on.query<{ relname: (typeof HOT_TABLES)[number] }>(
    `SELECT relname FROM pg_stat_user_tables
     WHERE schemaname = current_schema() AND relname = ANY($1::text[])
       AND n_dead_tup > greatest($2::int, n_live_tup * $3::float8)`,
    [HOT_TABLES, DEAD_ROWS_FLOOR, DEAD_SHARE],
  );
  const vacuumed: string[] = [];
  for (const { relname } of rows) {
    // The name is one of HOT_TABLES, never outside input.
    await on.query(`VACUUM (SKIP_LOCKED) ${relname}`);
    vacuumed.push(relname);
  }
  return vacuumed;
}
