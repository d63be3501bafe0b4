import type { Queryable } from './queryable.js';

/**
 * Tables written and deleted at the rate of events. Their live rows stay few, but the
 * dead rows each delete leaves slow every statement that walks their indexes until a
 * vacuum, and autovacuum may be off or lag behind.
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
 * Vacuums the hot tables holding too many dead rows (PostgreSQL counts them with
 * autovacuum off too) and returns their names; a table another worker is vacuuming is
 * left to it.
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
