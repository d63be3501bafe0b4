// `pnpm db:migration <name>`: writes prisma/migrations/<timestamp>_<name>/ from the
// difference between prisma/schema.prisma and the schema the last migration reached.
import { loadConfigOrExit, loadDatabaseUrl } from '@ingest/config';
import { createMigration } from '../migrations/create-migration.js';
import { MIGRATIONS_DIR, SCHEMA_PATH } from '../paths.js';

const name = process.argv[2];
if (name === undefined || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: pnpm db:migration <name>   (name: a-z, 0-9 and _)');
  process.exit(2);
}
// DATABASE_URL alone: no API or worker setting has a say in writing a migration.
const databaseUrl = loadConfigOrExit(() => loadDatabaseUrl());
const dir = await createMigration({
  databaseUrl,
  schemaPath: SCHEMA_PATH,
  migrationsDir: MIGRATIONS_DIR,
  name,
});
console.log(dir === undefined ? 'schema unchanged: no migration written' : `wrote ${dir}`);
// The wasm schema engine leaves a timer of its own running: do not wait for it.
process.exit();
