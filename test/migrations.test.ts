import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffFromLatestMigration, MIGRATIONS_DIR, SCHEMA_PATH } from '@ingest/db/migrations';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from './support/processes.js';
import { newTestTag } from './support/test-env.js';
import { TEST_DATABASE_URL } from './support/test-database.js';

const databaseName = `ingest_migrate_${newTestTag()}`;
const databaseUrl = Object.assign(new URL(TEST_DATABASE_URL), {
  pathname: `/${databaseName}`,
}).toString();
const adminUrl = Object.assign(new URL(TEST_DATABASE_URL), { pathname: '/postgres' }).toString();

async function query<Row extends object>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await query(adminUrl, `DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
});

const migrate = () =>
  run('pnpm', ['-s', 'db:migrate'], { env: { DATABASE_URL: databaseUrl }, timeoutMs: 60_000 });

describe('pnpm db:migrate', () => {
  it('creates a missing database, applies every migration once, and records them as Prisma does', async () => {
    const first = await migrate();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`created database`);

    const applied = await query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
    }>(
      databaseUrl,
      'SELECT migration_name, checksum, finished_at FROM _prisma_migrations ORDER BY migration_name',
    );
    const onDisk = readFileSync(join(MIGRATIONS_DIR, 'migration_lock.toml'), 'utf8');
    expect(onDisk).toContain('provider = "postgresql"');
    expect(applied.length).toBeGreaterThan(0);
    for (const row of applied) {
      const sql = readFileSync(join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(row.finished_at).not.toBeNull();
      expect(first.stdout).toContain(`applied ${row.migration_name}`);
    }
    const tables = await query<{ tablename: string }>(
      databaseUrl,
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    );
    expect(tables.map((t) => t.tablename)).toEqual(
      expect.arrayContaining(['accounts', 'api_keys']),
    );

    const second = await migrate();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('no pending migrations');
    const after = await query<{ count: string }>(
      databaseUrl,
      'SELECT count(*) FROM _prisma_migrations',
    );
    expect(Number(after[0]!.count)).toBe(applied.length);
  });
});

describe('the migrations folder', () => {
  it('is up to date with prisma/schema.prisma (run `pnpm db:migration <name>` after a schema change)', async () => {
    const { sql } = await diffFromLatestMigration({
      databaseUrl: TEST_DATABASE_URL,
      schemaPath: SCHEMA_PATH,
      migrationsDir: MIGRATIONS_DIR,
    });
    expect(sql).toBe('');
  });
});
