// `pnpm db:migration <name>`: writes prisma/migrations/<timestamp>_<name>/ from the
// difference between prisma/schema.prisma and the schema the last migration reached.
import { loadWorkerConfig } from '@ingest/config';
import { createMigration } from '../migrations/create-migration.js';
import { MIGRATIONS_DIR, SCHEMA_PATH } from '../paths.js';

const name = process.argv[2];
if (name === undefined || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: pnpm db:migration <name>   (name: a-z, 0-9 and _)');
  process.exit(2);
}
const { database } = loadWorkerConfig();
const dir = await createMigration({
  databaseUrl: database.url,
  schemaPath: SCHEMA_PATH,
  migrationsDir: MIGRATIONS_DIR,
  name,
});
console.log(dir === undefined ? 'schema unchanged: no migration written' : `wrote ${dir}`);
// The wasm schema engine leaves a 10-second timer of its own running: do not wait for it.
process.exit();
