// Per-event work does not grow with the content: on a database already holding 200,000
// articles, 200,000 events with their attempts, and another account's backlog of 50,000
// places in line, publishing every kind of event, and every kind of failure, makes
// PostgreSQL read none of the big tables whole. Counted with pg_stat_user_tables, which
// sees every statement the API and a real worker process send, including those a list of
// EXPLAINs would miss. A backend reports its counts when it exits, so both are stopped
// before the counts are read.
//
// 200,000 rows because on a small table a sequential scan is the planner's right choice:
// only on a large one does a statement that cannot use an index show up as a scan.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, articleData, finalReceipt, uniqueSlug } from './support/content.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { uuidV7At } from './support/uuid-v7-sql.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const ROWS = 200_000;
// The tables holding the seeded rows: the articles, the event log's and its attempts'
// partitions of today, and the places in line. (The log's empty partitions of the coming
// days are read whole by statements that do not bound the time from above: an empty
// table has nothing to read.)
const BIG_TABLES = `(relname IN ('articles', 'pending_order_keys') OR relname LIKE 'webhook_logs%'
  OR relname LIKE 'event_attempts%') AND n_live_tup >= 1000`;

let scratch: ScratchDatabase;
let api: TestApi | undefined;
let worker: WorkerProcess | undefined;

async function seed(client: pg.Client): Promise<void> {
  await client.query(
    `INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
     VALUES (gen_random_uuid(), 'seed@example.test', 'seed', 'Seed', 'unused', now())`,
  );
  await client.query(
    `INSERT INTO api_keys (id, account_id, name, scopes, prefix, key_hash, signing_secret)
     SELECT gen_random_uuid(), id, 'key', '{content:create}', 'sk-seed', sha256(id::text::bytea),
            'whsec_unused'
     FROM accounts`,
  );
  // Slugs seed-1 ... seed-200000: a title "Seed" starts like all of them.
  await client.query(
    `INSERT INTO articles (id, slug, account_id, title, body, read_minutes,
                          read_minutes_computed, updated_at)
     SELECT gen_random_uuid(), 'seed-' || n, a.id, 'Seed ' || n, ARRAY['Paragraph ' || n], 1,
            false, now()
     FROM generate_series(1, $1::int) AS n, accounts AS a`,
    [ROWS],
  );
  // An hour ago, or at midnight (UTC) if the day is younger: the log's first partition is
  // of the day the migration ran, so an hour ago may have none.
  const seededAt = `greatest(now() - interval '1 hour', date_trunc('day', now(), 'UTC'))`;
  await client.query(
    `INSERT INTO webhook_logs
       (id, account_id, api_key_id, event, payload, request_id, status, order_keys, received_at)
     SELECT ${uuidV7At(seededAt)}, k.account_id, k.id, 'article.create',
            jsonb_build_object('slug', 'seed-' || n), 'request-' || n, 'succeeded',
            ARRAY['seed-' || n], ${seededAt}
     FROM generate_series(1, $1::int) AS n, api_keys AS k`,
    [ROWS],
  );
  await client.query(
    `INSERT INTO event_attempts (event_id, number, started_at, finished_at, outcome)
     SELECT id, 1, received_at, received_at, 'succeeded' FROM webhook_logs`,
  );
  // Another account's backlog in line: 50,000 places the claims and wake-ups must pass by.
  await client.query(
    `INSERT INTO pending_order_keys (account_id, key, sequence, event_id)
     SELECT '00000000-0000-4000-8000-00000000b10c', 'backlog-' || n % 5000, n, gen_random_uuid()
     FROM generate_series(1, 50000) AS n`,
  );
  // What autovacuum would have done by now on a live table.
  await client.query('VACUUM ANALYZE articles, webhook_logs, event_attempts, pending_order_keys');
}

async function sequentialScans(): Promise<Map<string, number>> {
  const client = await scratch.connect();
  try {
    const { rows } = await client.query<{ relname: string; seq_scan: string }>(
      `SELECT relname, seq_scan FROM pg_stat_user_tables WHERE ${BIG_TABLES}`,
    );
    return new Map(rows.map((row) => [row.relname, Number(row.seq_scan)]));
  } finally {
    await client.end();
  }
}

/** Connections to the scratch database other than the one asking: the API's, the worker's. */
async function otherBackends(): Promise<number> {
  const client = await scratch.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  scratch = await createScratchDatabase();
  const client = await scratch.connect();
  try {
    await seed(client);
  } finally {
    await client.end();
  }
}, 120_000);
afterAll(async () => {
  await worker?.stop('SIGTERM');
  await api?.close();
  await scratch?.drop();
});

describe('the accept and apply paths on a database with 200,000 articles', () => {
  it('read no big table whole, for any kind of event or failure', async () => {
    const before = await sequentialScans();
    api = await startTestApi({ DATABASE_URL: scratch.url });
    worker = await startWorkerProcess(api.tag, { DATABASE_URL: scratch.url });
    const { key } = await createKey(api, await registerAccount(api));

    const slugOf = async (event: string, data: unknown) => {
      const receipt = await finalReceipt(api!, key, await accept(api!, key, event, data));
      return receipt.status === 'succeeded'
        ? (receipt.result as { slug?: string }).slug
        : (receipt.error as { code: string }).code;
    };
    const title = `Scan check ${uniqueSlug('t')}`;
    const derived = [];
    for (let i = 0; i < 3; i += 1) {
      derived.push(await slugOf('article.create', { title, body: ['Text.'] }));
    }
    expect(derived.map((slug) => slug?.replace(/^scan-check-t-[0-9a-f]{8}/, 'base'))).toEqual([
      'base',
      'base-2',
      'base-3',
    ]);
    expect(await slugOf('article.create', { title: 'Seed', body: ['Text.'] })).toBe('seed');
    const named = uniqueSlug();
    expect(await slugOf('article.create', articleData({ slug: named }))).toBe(named);
    expect(await slugOf('article.create', articleData({ slug: 'seed-5' }))).toBe('SLUG_TAKEN');
    expect(await slugOf('article.update', { slug: named, title: 'Changed' })).toBe(named);
    expect(await slugOf('article.update', { slug: uniqueSlug(), title: 'X' })).toBe(
      'ARTICLE_NOT_FOUND',
    );
    expect(await slugOf('article.update', { slug: 'seed-6', title: 'Not mine' })).toBe(
      'ARTICLE_NOT_FOUND',
    );
    const highlight = await finalReceipt(
      api,
      key,
      await accept(api, key, 'highlight.create', {
        title: 'Goal',
        videoUrl: 'https://video.example.com/g.mp4',
        articleSlug: named,
      }),
    );
    expect(highlight.status).toBe('succeeded');
    expect(await slugOf('article.delete', { slug: derived[1] })).toBe(derived[1]);
    expect(await slugOf('article.delete', { slug: derived[1] })).toBe('ARTICLE_NOT_FOUND');

    // Their backends report what they read as they exit.
    await worker.stop('SIGTERM');
    worker = undefined;
    await api.close();
    api = undefined;
    await expect.poll(otherBackends, { timeout: 10_000, interval: 100 }).toBe(0);
    const after = await sequentialScans();
    expect([...after.keys()].sort()).toEqual([
      'articles',
      expect.stringMatching(/^event_attempts_p\d{8}$/),
      'pending_order_keys',
      expect.stringMatching(/^webhook_logs_p\d{8}$/),
    ]);
    const scanned = [...after].filter(([table, scans]) => scans > (before.get(table) ?? 0));
    expect(scanned).toEqual([]);
  }, 120_000);
});
