// Migration tooling, kept apart from the client so that services never load the schema
// engine's WebAssembly, which they do not use.
export { applyMigrations, type MigrationResult } from './apply-migrations.js';
export { createMigration, diffFromLatestMigration } from './create-migration.js';
export { ensureDatabase, maintenanceDatabaseUrl } from './ensure-database.js';
export { MIGRATIONS_DIR, SCHEMA_PATH } from '../paths.js';
