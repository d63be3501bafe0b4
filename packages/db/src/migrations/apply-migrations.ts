import { readFile } from 'node:fs/promises';
import { ensureDatabase } from './ensure-database.js';
import { readMigrationList } from './migration-files.js';
import { NO_SCHEMA_FILTER, openSchemaEngine } from './schema-engine.js';

export interface MigrationResult {
  createdDatabase: boolean;
  applied: string[];
}

/**
 * Creates the database if it is missing and applies every migration not yet applied,
 * recording each in Prisma's `_prisma_migrations` table with Prisma's own checksum, so
 * `prisma migrate deploy` accepts the same database later.
 */
export async function applyMigrations(options: {
  databaseUrl: string;
  schemaPath: string;
  migrationsDir: string;
}): Promise<MigrationResult> {
  const createdDatabase = await ensureDatabase(options.databaseUrl);
  const schema = await readFile(options.schemaPath, 'utf8');
  const session = await openSchemaEngine(options.databaseUrl, [
    { path: options.schemaPath, content: schema },
  ]);
  try {
    const output = await session.engine.applyMigrations({
      migrationsList: await readMigrationList(options.migrationsDir),
      filters: NO_SCHEMA_FILTER,
    });
    return { createdDatabase, applied: output.appliedMigrationNames };
  } finally {
    await session.close();
  }
}
