// The bench's own database on the machine's PostgreSQL: dropped and created afresh by
// each run (a run killed with SIGKILL could not drop it), migrated with the project's
// own `pnpm db:migrate`, and dropped at the end.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@ingest/test-harness';
import pg from 'pg';
import { FLOOR_TABLES_SQL } from '../floor/floor-schema.js';

const run = promisify(execFile);

export const BENCH_DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/ingest_bench';

function maintenanceUrl(database = BENCH_DATABASE_URL): { url: string; name: string } {
  const url = new URL(database);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  return { url: url.toString(), name };
}

async function withMaintenance(database: string, sql: (name: string) => string): Promise<void> {
  const { url, name } = maintenanceUrl(database);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql(pg.escapeIdentifier(name)));
  } finally {
    await client.end();
  }
}

/**
 * Refuses a second run while one is under way on the same PostgreSQL: both would use, drop
 * and recreate the same database under each other, and both sets of figures would be
 * wrong. The lock is a session advisory lock, so a run that dies, however it dies,
 * releases it. Resolves with the release.
 */
export async function holdBenchLock(): Promise<() => Promise<void>> {
  const { url, name } = maintenanceUrl();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  client.on('error', () => {});
  const { rows } = await client.query<{ locked: boolean }>(
    `SELECT pg_try_advisory_lock(hashtext('pnpm bench ' || $1)) AS locked`,
    [name],
  );
  if (rows[0]?.locked !== true) {
    await client.end();
    throw new Error(
      `another pnpm bench is running against database ${name}; wait for it to finish`,
    );
  }
  return () => client.end();
}

/** The bench database's URL with `_<suffix>` after its name: a second database beside it. */
export function siblingDatabaseUrl(suffix: string): string {
  const url = new URL(BENCH_DATABASE_URL);
  url.pathname = `${url.pathname}_${suffix}`;
  return url.toString();
}

export const dropBenchDatabase = (database = BENCH_DATABASE_URL) =>
  withMaintenance(database, (name) => `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);

/** A fresh, migrated bench database with the floor's tables, and a pool on it. */
export async function createBenchDatabase(database = BENCH_DATABASE_URL): Promise<pg.Pool> {
  await dropBenchDatabase(database);
  await run('pnpm', ['--silent', 'db:migrate'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: database },
    timeout: 120_000,
  });
  const pool = new pg.Pool({ connectionString: database, max: 3 });
  pool.on('error', () => {});
  await pool.query(FLOOR_TABLES_SQL);
  return pool;
}

/**
 * Empties what the measured paths write, so that each step starts from the same table
 * sizes. Accounts, API keys and webhook endpoints stay. Run only while no worker runs.
 *
 * Outgoing webhook messages and their deliveries are named: they reference accounts and
 * endpoints, not the event log, so CASCADE from webhook_logs would not reach them. So is
 * pending_order_keys, which has no foreign key to the log: left behind, the places of a
 * capacity step's events (never drained) stood in their accounts' lines for every later
 * phase, a backlog no real deployment has, and each drain of the run was slower than the last.
 *
 * CASCADE also empties every table whose rows reference these (any table added later
 * that hangs off webhook_logs or articles): without it, one the bench does not name makes
 * TRUNCATE refuse ("cannot truncate a table referenced in a foreign key constraint").
 * It never reaches accounts or API keys: these tables reference them, not the reverse.
 */
export async function truncateEventTables(pool: pg.Pool): Promise<void> {
  await pool.query(
    `TRUNCATE webhook_logs, event_attempts, pending_order_keys, idempotency_keys, highlights,
       articles, categories, webhook_messages, webhook_deliveries, floor_log, floor_article
       CASCADE`,
  );
}

/** The PostgreSQL server processes serving the bench database (the service's pools too). */
export async function backendPids(pool: pg.Pool): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
  );
  return rows.map((row) => row.pid);
}
