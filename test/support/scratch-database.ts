import { applyMigrations, MIGRATIONS_DIR, SCHEMA_PATH } from '@ingest/db/migrations';
import pg from 'pg';
import { newTestTag } from './test-env.js';
import { TEST_DATABASE_URL } from './test-database.js';

export interface ScratchDatabase {
  url: string;
  /** Runs SQL on its own connection, for setting up faults (locks) the test then lifts. */
  connect(): Promise<pg.Client>;
  drop(): Promise<void>;
}

/**
 * A freshly migrated database of the test's own, for tests that lock tables or slow the
 * database down: doing that to the shared test database would stall other test files.
 */
export async function createScratchDatabase(): Promise<ScratchDatabase> {
  const name = `ingest_scratch_${newTestTag()}`;
  const url = Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/${name}` }).toString();
  await applyMigrations({
    databaseUrl: url,
    schemaPath: SCHEMA_PATH,
    migrationsDir: MIGRATIONS_DIR,
  });
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return client;
  };
  return {
    url,
    connect,
    async drop() {
      const admin = new pg.Client({
        connectionString: Object.assign(new URL(TEST_DATABASE_URL), {
          pathname: '/postgres',
        }).toString(),
      });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}
