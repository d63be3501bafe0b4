// `pnpm db:migrate`: creates the database if it is missing and applies pending migrations.
import { loadWorkerConfig, redactUrlPassword } from '@ingest/config';
import { applyMigrations } from '../migrations/apply-migrations.js';
import { MIGRATIONS_DIR, SCHEMA_PATH } from '../paths.js';

const { database } = loadWorkerConfig();
try {
  const result = await applyMigrations({
    databaseUrl: database.url,
    schemaPath: SCHEMA_PATH,
    migrationsDir: MIGRATIONS_DIR,
  });
  const where = redactUrlPassword(database.url);
  if (result.createdDatabase) console.log(`created database ${where}`);
  if (result.applied.length === 0) console.log(`${where}: no pending migrations`);
  for (const name of result.applied) console.log(`${where}: applied ${name}`);
} catch (error) {
  console.error(`migration failed: ${(error as Error).message}`);
  process.exitCode = 1;
}
// The wasm schema engine leaves a 10-second timer of its own running after its work is
// done; everything of ours is closed, so do not wait for it.
process.exit();
