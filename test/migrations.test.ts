import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffFromLatestMigration, MIGRATIONS_DIR, SCHEMA_PATH } from '@ingest/db/migrations';
import { freePort, runCommand, runTsEntry } from '@ingest/test-harness';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
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
  runCommand('pnpm', ['-s', 'db:migrate'], {
    env: { DATABASE_URL: databaseUrl },
    timeoutMs: 60_000,
  });

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

describe('pnpm db:migrate reads DATABASE_URL alone', () => {
  const MIGRATE_CLI = 'packages/db/src/cli/migrate.ts';

  it('is not stopped by a bad API or worker setting', async () => {
    const result = await runCommand('pnpm', ['-s', 'db:migrate'], {
      env: {
        DATABASE_URL: TEST_DATABASE_URL,
        WORKER_CONCURRENCY: 'abc',
        JOB_ATTEMPTS: 'many',
        JWT_SECRET: 'short',
      },
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('no pending migrations');
  });

  it('ends a bad DATABASE_URL in one line and exit code 1', async () => {
    const result = await runTsEntry(MIGRATE_CLI, { env: { DATABASE_URL: 'not a url' } });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'migration failed: DATABASE_URL must be a URL',
    ]);
  });

  it('ends an unreachable database in one line and exit code 1', async () => {
    const port = await freePort();
    const result = await runTsEntry(MIGRATE_CLI, {
      env: { DATABASE_URL: `postgresql://postgres:secret@127.0.0.1:${port}/ingest` },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      `migration failed: PostgreSQL at postgresql://postgres:***@127.0.0.1:${port}/ingest is not answering (ECONNREFUSED); start it or set DATABASE_URL`,
    ]);
  });
});
