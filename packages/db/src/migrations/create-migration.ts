import { readFile } from 'node:fs/promises';
import { readLatestSnapshot, writeMigration } from './migration-files.js';
import { maintenanceDatabaseUrl } from './ensure-database.js';
import { NO_SCHEMA_FILTER, openSchemaEngine } from './schema-engine.js';

/**
 * The SQL that takes a database from the newest migration's schema to `schema`; an
 * empty string when they agree. The engine insists on a connection but reads nothing
 * through it, so it connects to the server's `postgres` database, which always exists.
 */
export async function diffFromLatestMigration(options: {
  databaseUrl: string;
  schemaPath: string;
  migrationsDir: string;
}): Promise<{ sql: string; schema: string }> {
  const schema = await readFile(options.schemaPath, 'utf8');
  const previous = await readLatestSnapshot(options.migrationsDir);
  const session = await openSchemaEngine(maintenanceDatabaseUrl(options.databaseUrl), [
    { path: options.schemaPath, content: schema },
  ]);
  try {
    const result = await session.engine.diff({
      from:
        previous === undefined
          ? { tag: 'empty' }
          : { tag: 'schemaDatamodel', files: [{ path: options.schemaPath, content: previous }] },
      to: { tag: 'schemaDatamodel', files: [{ path: options.schemaPath, content: schema }] },
      script: true,
      exitCode: null,
      filters: NO_SCHEMA_FILTER,
    });
    const sql = result.stdout ?? '';
    return { sql: isEmptyMigration(sql) ? '' : sql, schema };
  } finally {
    await session.close();
  }
}

// The engine answers an empty diff with a comment line rather than nothing.
function isEmptyMigration(sql: string): boolean {
  return sql.split('\n').every((line) => line.trim() === '' || line.trim().startsWith('--'));
}

/** Writes a new migration named `<UTC timestamp>_<name>`; undefined when nothing changed. */
export async function createMigration(options: {
  databaseUrl: string;
  schemaPath: string;
  migrationsDir: string;
  name: string;
  now?: Date;
}): Promise<string | undefined> {
  const { sql, schema } = await diffFromLatestMigration(options);
  if (sql === '') return undefined;
  const stamp = (options.now ?? new Date()).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return writeMigration(options.migrationsDir, `${stamp}_${options.name}`, sql, schema);
}
