// The migration that partitions the event log, applied to a database that already holds
// events of every kind: no row is lost or changed, and the Prisma client reads them as before.
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '@ingest/db';
import { applyMigrations, MIGRATIONS_DIR, SCHEMA_PATH } from '@ingest/db/migrations';
import { listPartitions, premakeAhead } from '@ingest/event-log';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { newTestTag } from './support/test-env.js';
import { TEST_DATABASE_URL } from './support/test-database.js';

const FIRST_PARTITIONED = '20261123060709_sequence_not_unique';
const name = `ingest_partition_migration_${newTestTag()}`;
const url = Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/${name}` }).toString();
const adminUrl = Object.assign(new URL(TEST_DATABASE_URL), { pathname: '/postgres' }).toString();
let migrationsBefore: string | undefined;

afterAll(async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
  if (migrationsBefore !== undefined) await rm(migrationsBefore, { recursive: true });
});

/** The migrations folder as it was before the event log was partitioned. */
async function migrationsUntilPartitioning(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  for (const entry of await readdir(MIGRATIONS_DIR)) {
    if (entry >= FIRST_PARTITIONED && !entry.endsWith('.toml')) continue;
    await cp(join(MIGRATIONS_DIR, entry), join(dir, entry), { recursive: true });
  }
  return dir;
}

const EVERY_ROW = {
  webhook_logs: 'SELECT to_jsonb(t) AS row FROM webhook_logs t ORDER BY id',
  event_attempts: 'SELECT to_jsonb(t) AS row FROM event_attempts t ORDER BY event_id, number',
  pending_order_keys: 'SELECT to_jsonb(t) AS row FROM pending_order_keys t ORDER BY event_id, key',
  idempotency_keys: 'SELECT to_jsonb(t) AS row FROM idempotency_keys t ORDER BY key',
};

async function snapshot(client: pg.Client): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {};
  for (const [table, sql] of Object.entries(EVERY_ROW)) {
    tables[table] = (await client.query<{ row: unknown }>(sql)).rows.map((r) => r.row);
  }
  return tables;
}

describe('the event-log partitioning migration', () => {
  it('converts a database holding events without losing or changing a row', async () => {
    migrationsBefore = await migrationsUntilPartitioning();
    await applyMigrations({
      databaseUrl: url,
      schemaPath: SCHEMA_PATH,
      migrationsDir: migrationsBefore,
    });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`
        INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
        VALUES ('01900000-0000-7000-8000-0000000000aa', 'm@example.com', 'migrated', 'M', 'x', now());
        INSERT INTO api_keys (id, account_id, name, scopes, prefix, key_hash)
        VALUES ('01900000-0000-7000-8000-0000000000bb', '01900000-0000-7000-8000-0000000000aa',
                'k', '{content:write}', 'sk-abc', '\\x01');
        -- 3,000 events over the last 90 days, every status, some with results and errors.
        INSERT INTO webhook_logs (id, account_id, api_key_id, event, payload, request_id, status,
                                  order_keys, attempts, received_at, finished_at, result, error,
                                  replays, last_replayed_at)
        SELECT (lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0')
                || '7000' || '8000' || lpad(to_hex(i), 12, '0'))::uuid,
               '01900000-0000-7000-8000-0000000000aa',
               CASE WHEN i % 3 = 0 THEN NULL ELSE '01900000-0000-7000-8000-0000000000bb'::uuid END,
               CASE WHEN i % 50 = 0 THEN NULL ELSE 'article.create' END,
               jsonb_build_object('event', 'article.create', 'data', jsonb_build_object('slug', 's' || i, 'n', i)),
               'req-' || i,
               (ARRAY['queued', 'processing', 'succeeded', 'failed', 'rejected'])[1 + i % 5],
               ARRAY['s' || i], i % 4, at,
               CASE WHEN i % 5 >= 2 THEN at + interval '1 second' END,
               CASE WHEN i % 5 = 2 THEN jsonb_build_object('articleId', i) END,
               CASE WHEN i % 5 = 3 THEN jsonb_build_object('code', 'X', 'message', 'm') END,
               i % 2, CASE WHEN i % 7 = 0 THEN at + interval '1 hour' END
        FROM generate_series(1, 3000) AS i,
             LATERAL (SELECT now() - (i * interval '43 minutes') AS at) AS t;
        INSERT INTO event_attempts (event_id, number, started_at, finished_at, outcome, error)
        SELECT id, n, received_at, finished_at, CASE WHEN status = 'failed' THEN 'failed' END,
               CASE WHEN status = 'failed' THEN '{"code":"X"}'::jsonb END
        FROM webhook_logs, generate_series(1, 2) AS n WHERE status <> 'rejected';
        INSERT INTO pending_order_keys (account_id, key, sequence, event_id)
        SELECT account_id, order_keys[1], sequence, id FROM webhook_logs
        WHERE status IN ('queued', 'processing');
        INSERT INTO idempotency_keys (account_id, key, request_hash, event_id)
        SELECT account_id, 'key-' || sequence, '\\x02', id FROM webhook_logs LIMIT 500;
      `);
      const before = await snapshot(client);
      expect(before.webhook_logs).toHaveLength(3000);

      await applyMigrations({
        databaseUrl: url,
        schemaPath: SCHEMA_PATH,
        migrationsDir: MIGRATIONS_DIR,
      });

      expect(await snapshot(client)).toEqual(before);
      // Later migrations ran too: the key made before them got a signing secret of its own.
      const secrets = await client.query<{ signing_secret: string }>(
        `SELECT signing_secret FROM api_keys`,
      );
      expect(secrets.rows.map((r) => r.signing_secret)).toEqual([
        expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      ]);
      const kinds = await client.query<{ relname: string; relkind: string }>(
        `SELECT relname, relkind FROM pg_class WHERE relname IN ('webhook_logs', 'event_attempts')`,
      );
      expect(kinds.rows.map((r) => r.relkind)).toEqual(['p', 'p']);
    } finally {
      await client.end();
    }

    // The old rows are one partition; new events go to the daily ones made after it.
    const db = createDatabase({ url, poolSize: 2, statementTimeoutMs: 10_000 });
    try {
      await premakeAhead(db.pool, 'day');
      const partitions = await listPartitions(db.pool);
      expect(partitions.filter((p) => p.table === 'webhook_logs')[0]).toMatchObject({
        name: 'webhook_logs_legacy',
        fromMs: null,
      });
      expect(partitions.filter((p) => p.table === 'webhook_logs').length).toBeGreaterThanOrEqual(8);
      // The Prisma client, unchanged, reads old rows and writes new ones.
      const old = await db.prisma.webhookLog.findFirst({
        where: { requestId: 'req-2998' },
        include: { attemptsLog: true },
      });
      expect(old?.attemptsLog).toHaveLength(2);
      const { rows } = await db.pool.query<{ sequence: string }>(
        `INSERT INTO webhook_logs (id, account_id, payload, request_id, status)
         VALUES ($1, '01900000-0000-7000-8000-0000000000aa', '{}', 'new', 'queued')
         RETURNING sequence::text`,
        [
          `${Date.now()
            .toString(16)
            .padStart(12, '0')
            .replace(/^(.{8})(.{4})$/, '$1-$2')}-7000-8000-000000000001`,
        ],
      );
      expect(Number(rows[0]!.sequence)).toBeGreaterThan(3000); // the sequence went on
    } finally {
      await db.close();
    }
  });
});
