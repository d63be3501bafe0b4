import { applyMigrations, MIGRATIONS_DIR, SCHEMA_PATH } from '@ingest/db/migrations';
import {
  createPartition,
  DAY_MS,
  EVENT_LOG_TABLES,
  listPartitions,
  premakeAhead,
} from '@ingest/event-log';
import pg from 'pg';
import { newTestTag } from './test-env.js';
import { TEST_DATABASE_URL } from './test-database.js';

export interface ScratchDatabase {
  url: string;
  /**
   * The start (UTC) of the day its log begins with: the day of the partition its migration
   * made, by PostgreSQL's clock. Tests count their days from it, not from a clock of their own.
   */
  today: number;
  /** Runs SQL on its own connection, for setting up faults (locks) the test then lifts. */
  connect(): Promise<pg.Client>;
  drop(): Promise<void>;
}

/**
 * A freshly migrated database of the test's own, for tests that lock tables or slow the
 * database down: doing that to the shared test database would stall other test files.
 * Its event log has daily partitions from `historyDays` before the day its migration ran
 * to a week ahead.
 */
export async function createScratchDatabase(
  options: { historyDays?: number } = {},
): Promise<ScratchDatabase> {
  const name = `ingest_scratch_${newTestTag()}`;
  const url = Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/${name}` }).toString();
  await applyMigrations({
    databaseUrl: url,
    schemaPath: SCHEMA_PATH,
    migrationsDir: MIGRATIONS_DIR,
  });
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  let today: number;
  try {
    // The migration made the partition of its day (PostgreSQL's): history goes before that
    // one, whatever day this process's clock reads by now (past midnight, it would make the
    // migration's partition again and fail).
    const [made] = await listPartitions(pool);
    if (made === undefined || made.fromMs === null)
      throw new Error('the migration made no daily partition');
    today = made.fromMs;
    for (let ago = options.historyDays ?? 0; ago >= 1; ago -= 1) {
      const start = today - ago * DAY_MS;
      for (const table of EVENT_LOG_TABLES) {
        await createPartition(pool, table, start, start + DAY_MS, 'day');
      }
    }
    await premakeAhead(pool, 'day');
  } finally {
    await pool.end();
  }
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return client;
  };
  return {
    url,
    today,
    connect,
    async drop() {
      const admin = new pg.Client({
        connectionString: Object.assign(new URL(TEST_DATABASE_URL), {
          pathname: '/postgres',
        }).toString(),
      });
      await admin.connect();
      try {
        // Connections the test just closed may still be on their way out: a FORCE drop
        // would terminate them mid-close, and the client, no longer listening for errors,
        // would crash the test run. So wait (up to 5 s) for them to go first; FORCE is
        // then only for connections a test left open.
        for (let waited = 0; waited < 5_000; waited += 50) {
          const { rows } = await admin.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1`,
            [name],
          );
          if (rows[0]!.n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
