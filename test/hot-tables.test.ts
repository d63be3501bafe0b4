// The tables written and deleted at event rate do not rot where autovacuum is off (as on
// this machine) or lags: the worker's maintenance round vacuums one once its dead rows
// pile up, and leaves it alone otherwise. Counted with PostgreSQL's own statistics, on a
// scratch database so that other files' traffic does not move them.
import { DEAD_ROWS_FLOOR, HOT_TABLES, vacuumHotTables } from '@ingest/event-log';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';

let scratch: ScratchDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  scratch = await createScratchDatabase();
  pool = new pg.Pool({ connectionString: scratch.url, max: 1 });
  // Where autovacuum is on, it must not clear the dead rows before the worker's round does.
  await pool.query('ALTER TABLE pending_order_keys SET (autovacuum_enabled = false)');
});
afterAll(async () => {
  await pool?.end();
  await scratch?.drop();
});

/** What a line of events leaves behind: `rows` keys waited in line, then left it. */
async function waitAndLeave(rows: number): Promise<void> {
  const client = await scratch.connect();
  try {
    await client.query(
      `INSERT INTO pending_order_keys (account_id, key, sequence, event_id)
       SELECT '00000000-0000-4000-8000-000000000001', 'slug-' || n, n, gen_random_uuid()
       FROM generate_series(1, $1::int) AS n`,
      [rows],
    );
    await client.query('DELETE FROM pending_order_keys');
  } finally {
    // A backend reports its counts to the statistics when it exits.
    await client.end();
  }
}

async function statsOf(table: string): Promise<{ dead: number; vacuums: number }> {
  for (let tries = 0; ; tries += 1) {
    await pool.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await pool.query<{ dead: string; vacuums: string }>(
      `SELECT n_dead_tup AS dead, vacuum_count AS vacuums FROM pg_stat_user_tables
       WHERE relname = $1`,
      [table],
    );
    const row = rows[0];
    if (row !== undefined) return { dead: Number(row.dead), vacuums: Number(row.vacuums) };
    if (tries > 20) throw new Error(`no statistics for ${table}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Until the exited backend's counts have arrived (they do within a moment). */
async function deadRowsAtLeast(table: string, least: number): Promise<number> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const { dead } = await statsOf(table);
    if (dead >= least || Date.now() > deadline) return dead;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('hot queue tables', () => {
  it('keep their pages when vacuumed, so no vacuum locks out their writers', async () => {
    const { rows } = await pool.query<{ relname: string; reloptions: string[] | null }>(
      `SELECT relname, reloptions FROM pg_class WHERE relname = ANY($1::text[]) ORDER BY 1`,
      [HOT_TABLES],
    );
    expect(rows.map((row) => row.relname)).toEqual([...HOT_TABLES].sort());
    for (const row of rows) expect(row.reloptions).toContain('vacuum_truncate=false');
  });

  it('are left alone while their dead rows are few', async () => {
    await waitAndLeave(DEAD_ROWS_FLOOR / 2);
    expect(await deadRowsAtLeast('pending_order_keys', DEAD_ROWS_FLOOR / 2)).toBeGreaterThan(0);
    const before = await statsOf('pending_order_keys');
    expect(await vacuumHotTables(pool)).toEqual([]);
    expect((await statsOf('pending_order_keys')).vacuums).toBe(before.vacuums);
  });

  it('are vacuumed once dead rows pile up, which clears them', async () => {
    await waitAndLeave(DEAD_ROWS_FLOOR * 5);
    expect(await deadRowsAtLeast('pending_order_keys', DEAD_ROWS_FLOOR * 5)).toBeGreaterThan(
      DEAD_ROWS_FLOOR,
    );
    const before = await statsOf('pending_order_keys');
    expect(await vacuumHotTables(pool)).toEqual(['pending_order_keys']);
    const after = await statsOf('pending_order_keys');
    expect(after.vacuums).toBe(before.vacuums + 1);
    expect(after.dead).toBe(0);
    // The emptied pages stay for the next rows: giving them back would have locked out
    // every accept and claim (vacuum_truncate = false, set by a migration).
    const { rows } = await pool.query<{ pages: string }>(
      `SELECT pg_relation_size('pending_order_keys') / current_setting('block_size')::int AS pages`,
    );
    expect(Number(rows[0]?.pages)).toBeGreaterThan(0);
    // Nothing left to do: the next round reads the statistics and stops.
    expect(await vacuumHotTables(pool)).toEqual([]);
  });
});
