// `pnpm db:migrate`: creates the database if it is missing and applies pending migrations.
// It reads DATABASE_URL alone: a bad API or worker setting must not stop a migration.
// Failing, it prints one line and exits 1: the usual causes (a mistyped URL, a database
// not started) are the operator's to fix, and a stack trace would only bury them.
import { ConfigError, loadDatabaseUrl, redactUrlPassword } from '@ingest/config';
import { databaseFailureOf } from '../failures.js';
import { applyMigrations } from '../migrations/apply-migrations.js';
import { MIGRATIONS_DIR, SCHEMA_PATH } from '../paths.js';

function reasonOf(error: unknown, where: string): string {
  if (error instanceof ConfigError) return error.problems.join('; ');
  if (databaseFailureOf(error) !== undefined) {
    // Node reports a refused connection to several addresses with an empty message.
    const cause = (error as { code?: string }).code ?? (error as Error).message;
    return `PostgreSQL at ${where} is not answering (${cause}); start it or set DATABASE_URL`;
  }
  return error instanceof Error ? error.message : String(error);
}

let where = '(DATABASE_URL)';
try {
  const databaseUrl = loadDatabaseUrl();
  where = redactUrlPassword(databaseUrl);
  const result = await applyMigrations({
    databaseUrl,
    schemaPath: SCHEMA_PATH,
    migrationsDir: MIGRATIONS_DIR,
  });
  if (result.createdDatabase) console.log(`created database ${where}`);
  if (result.applied.length === 0) console.log(`${where}: no pending migrations`);
  for (const name of result.applied) console.log(`${where}: applied ${name}`);
} catch (error) {
  console.error(`migration failed: ${reasonOf(error, where)}`);
  process.exitCode = 1;
}
// The wasm schema engine leaves a timer of its own running after its work is done;
// everything of ours is closed, so do not wait for it.
process.exit();
