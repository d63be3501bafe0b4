import { applyMigrations, MIGRATIONS_DIR, SCHEMA_PATH } from '@ingest/db/migrations';
import { premakeAhead } from '@ingest/event-log';
import pg from 'pg';
import { TEST_DATABASE_URL } from './test-database.js';

export default async function migrateTestDatabase(): Promise<void> {
  await applyMigrations({
    databaseUrl: TEST_DATABASE_URL,
    schemaPath: SCHEMA_PATH,
    migrationsDir: MIGRATIONS_DIR,
  });
  // The event log's partitions for the coming week, as an API or a worker makes them at
  // start: tests that write events through SQL alone need them too.
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  try {
    await premakeAhead(pool, 'day');
  } finally {
    await pool.end();
  }
}
