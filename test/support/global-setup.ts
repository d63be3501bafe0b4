import { applyMigrations, MIGRATIONS_DIR, SCHEMA_PATH } from '@ingest/db/migrations';
import { TEST_DATABASE_URL } from './test-database.js';

export default async function migrateTestDatabase(): Promise<void> {
  await applyMigrations({
    databaseUrl: TEST_DATABASE_URL,
    schemaPath: SCHEMA_PATH,
    migrationsDir: MIGRATIONS_DIR,
  });
}
