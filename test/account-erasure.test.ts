// Erasing an account: an operator asks, the API fences it at once (keys, unfinished
// events, public content), and a real worker process deletes the rest from PostgreSQL,
// Redis and the event log archives. Afterwards nothing holds the account's id or a canary
// string from its payloads, titles and categories; another account's data is untouched;
// the record stays, with a count of every table's rows the account had.
// On a scratch database of its own, with past days' partitions: every worker works on any
// unfinished erasure of its database, and other files' workers hold other Redis prefixes.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DAY_MS } from '@ingest/contracts';
import { runTsEntry } from '@ingest/test-harness';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import {
  accept,
  articleData,
  finalReceipt,
  jobStateOf,
  sendEvent,
  uniqueSlug,
} from './support/content.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let scratch: ScratchDatabase;
let workerEnv: Record<string, string>;
let api: TestApi;
let worker: WorkerProcess;
let base: string;
let archiveDir: string;
let admin: RegisteredAccount;

beforeAll(async () => {
  archiveDir = await mkdtemp(join(tmpdir(), 'ingest-erasure-'));
  scratch = await createScratchDatabase({ historyDays: 5 });
  workerEnv = {
    DATABASE_URL: scratch.url,
    ERASURE_SETTLE_MS: '1000',
    EVENT_LOG_ARCHIVE_DIR: archiveDir,
  };
  api = await startTestApi({ DATABASE_URL: scratch.url });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  admin = await registerAdmin(api);
  worker = await startWorkerProcess(api.tag, workerEnv);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await scratch?.drop();
  await rm(archiveDir, { recursive: true, force: true });
});

/** An archive of a closed period holding rows of both accounts, in the archiver's format. */
async function writeArchive(
  name: string,
  rows: Array<{ id: string; accountId: string; canary: string }>,
) {
  const lines = [
    ...rows.map((row) =>
      JSON.stringify({
        table: 'webhook_logs',
        row: { id: row.id, account_id: row.accountId, payload: { title: row.canary } },
      }),
    ),
    ...rows.map((row) =>
      JSON.stringify({ table: 'event_attempts', row: { event_id: row.id, number: 1 } }),
    ),
  ];
  const data = gzipSync(`${lines.join('\n')}\n`);
  await writeFile(join(archiveDir, `${name}.ndjson.gz`), data);
  await writeFile(
    join(archiveDir, `${name}.manifest.json`),
    JSON.stringify({
      format: 1,
      file: `${name}.ndjson.gz`,
      sha256: createHash('sha256').update(data).digest('hex'),
      bytes: data.length,
      rows: { webhook_logs: rows.length, event_attempts: rows.length },
      range: { fromMs: 0, toMs: 86_400_000 },
      source: { logs: name, attempts: null },
      createdAt: new Date().toISOString(),
    }),
  );
}

/** Every row of every table in the schema, as text, that contains `needle`. */
async function rowsHolding(needle: string): Promise<string[]> {
  const { rows: tables } = await api.deps.db.pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
       AND NOT c.relispartition`,
  );
  const found: string[] = [];
  for (const { name } of tables) {
    const { rows } = await api.deps.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${name}" t WHERE t::text LIKE $1`,
      [`%${needle}%`],
    );
    if ((rows[0]?.n ?? 0) > 0) found.push(`${name}: ${rows[0]?.n}`);
  }
  return found;
}

/** Keys under this test's prefix whose name or value holds `needle`. */
async function redisHolding(needle: string): Promise<string[]> {
  const redis = api.deps.redis;
  const prefix = api.deps.config.redis.keyPrefix;
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      let text = key;
      if (type === 'string') text += await redis.get(key);
      if (type === 'hash') text += JSON.stringify(await redis.hgetall(key));
      if (type === 'zset') text += (await redis.zrange(key, 0, -1)).join(' ');
      if (type === 'set') text += (await redis.smembers(key)).join(' ');
      if (type === 'list') text += (await redis.lrange(key, 0, -1)).join(' ');
      if (text.includes(needle)) found.push(`${type} ${key}`);
    }
  } while (cursor !== '0');
  return found;
}

/** Every archive file's text (gunzipped), by name. */
async function archiveTexts(): Promise<Array<[string, string]>> {
  const texts: Array<[string, string]> = [];
  for (const file of await readdir(archiveDir)) {
    const data = await readFile(join(archiveDir, file));
    texts.push([file, file.endsWith('.gz') ? gunzipSync(data).toString() : data.toString()]);
  }
  return texts;
}

/**
 * The rows the account has, by table, as its erasure counts them. Its categories and slug
 * counters are those that only its titles and category names (with the canary) made.
 */
async function holdings(accountId: string, canary: string): Promise<Record<string, number>> {
  const { rows } = await api.deps.db.pool.query<{ held: Record<string, number> }>(
    `WITH events AS (SELECT id FROM webhook_logs WHERE account_id = $1),
     messages AS (SELECT id FROM webhook_messages WHERE account_id = $1)
     SELECT jsonb_build_object(
       'webhook_logs', (SELECT count(*) FROM events),
       'event_attempts', (SELECT count(*) FROM event_attempts WHERE event_id IN (SELECT id FROM events)),
       'idempotency_keys', (SELECT count(*) FROM idempotency_keys WHERE account_id = $1),
       'api_keys', (SELECT count(*) FROM api_keys WHERE account_id = $1),
       'articles', (SELECT count(*) FROM articles WHERE account_id = $1),
       'highlights', (SELECT count(*) FROM highlights WHERE account_id = $1),
       'webhook_endpoints', (SELECT count(*) FROM webhook_endpoints WHERE account_id = $1),
       'webhook_messages', (SELECT count(*) FROM messages),
       'webhook_deliveries', (SELECT count(*) FROM webhook_deliveries
                              WHERE message_id IN (SELECT id FROM messages)),
       'account_share_changes', (SELECT count(*) FROM account_share_changes WHERE account_id = $1),
       'categories', (SELECT count(*) FROM categories WHERE name_key LIKE $2),
       'article_slug_counters', (SELECT count(*) FROM article_slug_counters WHERE base LIKE $2)
     ) AS held`,
    [accountId, `%${canary}%`],
  );
  return rows[0]!.held;
}

const erasureOf = async (id: string) =>
  (
    await api.app.inject({
      method: 'GET',
      url: `/api/admin/erasures/${id}`,
      headers: bearer(admin.token),
    })
  ).json<{
    accountId: string | null;
    finishedAt: string | null;
    requestedBy: string;
    counts: Record<string, number>;
    archives: Record<string, number>;
  }>();

const finished = (id: string) =>
  expect
    .poll(async () => (await erasureOf(id)).finishedAt, { timeout: 60_000, interval: 500 })
    .not.toBeNull();

describe('account erasure', () => {
  it(
    'leaves no row, Redis key or archive line of the account, keeps the others, and a record',
    { timeout: 120_000 },
    async () => {
      const canary = `canary${randomBytes(6).toString('hex')}`;
      const [leaving, staying] = await Promise.all([registerAccount(api), registerAccount(api)]);
      const { key } = await createKey(api, leaving);
      const { key: otherKey } = await createKey(api, staying);

      // Content applied, an event that failed, one with an Idempotency-Key, an endpoint.
      const endpoint = await api.app.inject({
        method: 'POST',
        url: '/api/webhooks/endpoints',
        headers: bearer(leaving.token),
        payload: { url: 'https://receiver.example.com/hooks' },
      });
      expect(endpoint.statusCode, endpoint.body).toBe(201);
      const slug = uniqueSlug();
      const applied = await accept(
        api,
        key,
        'article.create',
        articleData({ slug, title: `${canary} one` }),
      );
      await finalReceipt(api, key, applied);
      const failed = await accept(api, key, 'article.update', {
        slug: uniqueSlug(),
        title: canary,
      });
      await finalReceipt(api, key, failed);
      const keyed = await sendEvent(
        api,
        key,
        'article.create',
        articleData({ title: `${canary} keyed` }),
        { 'idempotency-key': `key-${canary}` },
      );
      expect(keyed.statusCode).toBe(202);
      await finalReceipt(api, key, keyed.json<{ id: string }>().id);
      // A title used twice (its slug's counter) and a category, both the account's own.
      for (let i = 0; i < 2; i += 1) {
        const titled = await accept(
          api,
          key,
          'article.create',
          articleData({ title: `${canary} repeated`, category: `${canary} Category` }),
        );
        expect((await finalReceipt(api, key, titled)).status).toBe('succeeded');
      }
      // The other account's article is filed under a category the leaving one used too.
      const otherSlug = uniqueSlug();
      const kept = await accept(api, otherKey, 'article.create', articleData({ slug: otherSlug }));
      await finalReceipt(api, otherKey, kept);

      // Queued events, held while the queue is paused: in flight when erasure starts.
      await api.app.inject({
        method: 'POST',
        url: '/api/admin/queue/pause',
        headers: bearer(admin.token),
      });
      for (let i = 0; i < 5; i += 1)
        await accept(
          api,
          key,
          'article.create',
          articleData({ slug: uniqueSlug(), body: [canary] }),
        );

      // An event of three days ago, in that day's partition, closed since.
      const old = uuidv7({ msecs: Date.now() - 3 * 86_400_000 });
      await api.deps.db.pool.query(
        `INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, received_at)
         VALUES ($1, $2, 'article.create', $3, 'erasure-test', 'succeeded', now() - interval '3 days')`,
        [old, leaving.id, JSON.stringify({ title: canary })],
      );
      await api.deps.db.pool.query(`INSERT INTO event_attempts (event_id, number) VALUES ($1, 1)`, [
        old,
      ]);

      const otherArchived = {
        id: '00000000-0000-7000-8000-000000000001',
        accountId: staying.id,
        canary: 'theirs',
      };
      await writeArchive('webhook_logs_p20260101', [
        { id: '00000000-0000-7000-8000-000000000002', accountId: leaving.id, canary },
        otherArchived,
      ]);

      const expected = await holdings(leaving.id, canary);
      expect(expected).toMatchObject({ categories: 1, article_slug_counters: 1 });
      // Their delivery jobs name a delivery, not the account: found by the deliveries' ids.
      const { rows: deliveries } = await api.deps.db.pool.query<{ id: string }>(
        `SELECT d.id FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
         WHERE m.account_id = $1`,
        [leaving.id],
      );
      const deliveryJobs = async () =>
        (await Promise.all(deliveries.map(({ id }) => api.deps.deliveryQueue.getJob(id)))).filter(
          (job) => job !== undefined,
        ).length;
      expect(await deliveryJobs()).toBeGreaterThan(0);

      const started = await api.app.inject({
        method: 'DELETE',
        url: `/api/admin/accounts/${leaving.handle}`,
        headers: bearer(admin.token),
      });
      expect(started.statusCode, started.body).toBe(202);
      const erasure = started.json<{ id: string; accountId: string }>();
      expect(erasure.accountId).toBe(leaving.id);

      // At once: the key is refused, the article is gone from public reads.
      const refused = await sendEvent(api, key, 'article.create', articleData());
      expect([401, 403]).toContain(refused.statusCode);
      const read = await api.app.inject({ method: 'GET', url: `/api/articles/${slug}` });
      expect(read.statusCode).toBe(404);
      await api.app.inject({
        method: 'POST',
        url: '/api/admin/queue/resume',
        headers: bearer(admin.token),
      });

      await finished(erasure.id);
      const record = await erasureOf(erasure.id);
      expect(record.accountId).toBeNull();
      expect(record.counts).toMatchObject(expected);
      expect(record.counts.slug_lists).toBeGreaterThanOrEqual(1);
      expect(record.counts.redis_jobs).toBeGreaterThanOrEqual(deliveries.length);
      expect(record.archives).toEqual({ 'webhook_logs_p20260101.ndjson.gz': 2 });
      expect(await deliveryJobs()).toBe(0);

      expect(await rowsHolding(canary)).toEqual([]);
      expect(await rowsHolding(leaving.id)).toEqual([]);
      expect(await redisHolding(leaving.id)).toEqual([]);
      expect(await redisHolding(canary)).toEqual([]);
      for (const [file, text] of await archiveTexts()) {
        expect(text, file).not.toContain(canary);
        expect(text, file).not.toContain(leaving.id);
      }
      const archived = gunzipSync(
        await readFile(join(archiveDir, 'webhook_logs_p20260101.ndjson.gz')),
      ).toString();
      expect(archived).toContain(otherArchived.id);

      // The other account's article, with its category, events and keys stand.
      const theirs = await api.app.inject({ method: 'GET', url: `/api/articles/${otherSlug}` });
      expect(theirs.statusCode).toBe(200);
      expect(theirs.json<{ category: string | null }>().category).toBe('News');
      expect((await finalReceipt(api, otherKey, kept)).status).toBe('succeeded');

      // The worker that filed the account's articles under its category files another
      // account's under that name again, though the id it saw is gone.
      const again = await accept(
        api,
        otherKey,
        'article.create',
        articleData({ slug: uniqueSlug(), category: `${canary} Category` }),
      );
      expect((await finalReceipt(api, otherKey, again)).status).toBe('succeeded');
    },
  );

  it('starts while a worker holds one of its events and inserts its article', async () => {
    const account = await registerAccount(api);
    const { key } = await createKey(api, account);
    const pause = (action: 'pause' | 'resume') =>
      api.app.inject({
        method: 'POST',
        url: `/api/admin/queue/${action}`,
        headers: bearer(admin.token),
      });
    await pause('pause');
    const queued = await accept(api, key, 'article.create', articleData({ slug: uniqueSlug() }));

    // What a worker applying that event does: lock it, then insert a row naming the account.
    const applying = await api.deps.db.pool.connect();
    try {
      await applying.query('BEGIN');
      await applying.query('SELECT 1 FROM webhook_logs WHERE id = $1 FOR UPDATE', [queued]);
      const started = api.app.inject({
        method: 'DELETE',
        url: `/api/admin/accounts/${account.id}`,
        headers: bearer(admin.token),
      });
      // The erasure now waits for the event's lock.
      await expect
        .poll(async () => {
          const { rows } = await api.deps.db.pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
             WHERE NOT l.granted AND a.query LIKE '%webhook_logs%' AND a.pid <> $1`,
            [(applying as unknown as { processID: number }).processID],
          );
          return rows[0]?.n;
        })
        .toBeGreaterThan(0);
      await applying.query(
        `INSERT INTO articles (id, slug, account_id, title, read_minutes, read_minutes_computed)
         VALUES ($1, $2, $3, 'applied', 1, true)`,
        [uuidv7(), uniqueSlug(), account.id],
      );
      await applying.query('COMMIT');
      const answer = await started;
      expect(answer.statusCode, answer.body).toBe(202);
      await finished(answer.json<{ id: string }>().id);
      expect(await rowsHolding(account.id)).toEqual([]);
    } finally {
      applying.release();
      await pause('resume');
    }
  });

  it('lets an account erase itself with its password, and stops its token at once', async () => {
    const account = await registerAccount(api);
    const ask = (password: string) =>
      api.app.inject({
        method: 'POST',
        url: '/api/auth/me/erasure',
        headers: bearer(account.token),
        payload: { password },
      });
    expect((await ask('not the password')).statusCode).toBe(401);
    const started = await ask(account.password);
    expect(started.statusCode, started.body).toBe(202);
    const { id } = started.json<{ id: string }>();
    expect((await erasureOf(id)).requestedBy).toBe('self');
    const me = await api.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: bearer(account.token),
    });
    expect(me.statusCode).toBe(401);
    await finished(id);
    expect(await rowsHolding(account.id)).toEqual([]);
  });

  it('applies none of its events in flight once it has started', { timeout: 120_000 }, async () => {
    const account = await registerAccount(api);
    const { key } = await createKey(api, account);
    const queue = (action: 'pause' | 'resume') =>
      api.app.inject({
        method: 'POST',
        url: `/api/admin/queue/${action}`,
        headers: bearer(admin.token),
      });
    // A worker with no maintenance round for now: the erasure's events stay to be read.
    await worker.stop();
    worker = await startWorkerProcess(api.tag, { ...workerEnv, RECONCILE_INTERVAL_MS: '600000' });
    await queue('pause');
    const slugs = [uniqueSlug(), uniqueSlug(), uniqueSlug()];
    const queued: string[] = [];
    try {
      for (const slug of slugs)
        queued.push(await accept(api, key, 'article.create', articleData({ slug })));
      const started = await api.app.inject({
        method: 'DELETE',
        url: `/api/admin/accounts/${account.id}`,
        headers: bearer(admin.token),
      });
      expect(started.statusCode, started.body).toBe(202);
    } finally {
      await queue('resume');
    }

    // The worker takes their jobs and finishes them without applying them.
    await expect
      .poll(async () => Promise.all(queued.map((id) => jobStateOf(api, id))), { timeout: 30_000 })
      .toEqual(queued.map(() => 'completed'));
    const { rows: articles } = await api.deps.db.pool.query(
      'SELECT slug FROM articles WHERE slug = ANY($1::text[])',
      [slugs],
    );
    expect(articles).toEqual([]);
    const { rows: events } = await api.deps.db.pool.query<{ status: string; error: unknown }>(
      'SELECT status, error FROM webhook_logs WHERE id = ANY($1::uuid[])',
      [queued],
    );
    expect(events).toEqual(
      queued.map(() => ({
        status: 'failed',
        error: {
          code: 'PROCESSING_FAILED',
          message: 'The account is being erased: the event is not applied',
        },
      })),
    );
    for (const slug of slugs) {
      const read = await api.app.inject({ method: 'GET', url: `/api/articles/${slug}` });
      expect(read.statusCode).toBe(404);
    }

    await worker.stop();
    worker = await startWorkerProcess(api.tag, workerEnv);
  });

  it("replaces an erased operator's email in the share changes they made", async () => {
    const operator = await registerAdmin(api);
    const account = await registerAccount(api);
    const changed = await api.app.inject({
      method: 'PUT',
      url: `/api/admin/accounts/${account.id}/share`,
      headers: bearer(operator.token),
      payload: { weight: 2, maxInFlight: null },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const started = await api.app.inject({
      method: 'DELETE',
      url: `/api/admin/accounts/${operator.id}`,
      headers: bearer(admin.token),
    });
    expect(started.statusCode, started.body).toBe(202);
    const { id } = started.json<{ id: string }>();
    await finished(id);

    const { rows } = await api.deps.db.pool.query(
      'SELECT operator_id, operator_email FROM account_share_changes WHERE account_id = $1',
      [account.id],
    );
    expect(rows).toEqual([{ operator_id: null, operator_email: '(erased operator)' }]);
    expect((await erasureOf(id)).counts['account_share_changes.operator_email']).toBe(1);
    expect(await rowsHolding(operator.email)).toEqual([]);
    expect(await rowsHolding(operator.id)).toEqual([]);
  });

  it(
    'resumes after its worker is killed in the middle of its batches, to the same end',
    { timeout: 180_000 },
    async () => {
      const canary = `canary${randomBytes(6).toString('hex')}`;
      const [account, other] = await Promise.all([registerAccount(api), registerAccount(api)]);
      const { key } = await createKey(api, account);
      const { key: otherKey } = await createKey(api, other);
      const applied: string[] = [];
      for (let i = 0; i < 2; i += 1) {
        const id = await accept(
          api,
          key,
          'article.create',
          articleData({ title: `${canary} twice`, category: `${canary} kind`, body: [canary] }),
        );
        applied.push(id);
        expect((await finalReceipt(api, key, id)).status).toBe('succeeded');
      }
      const otherSlug = uniqueSlug();
      const theirs = await accept(
        api,
        otherKey,
        'article.create',
        articleData({ slug: otherSlug }),
      );
      await finalReceipt(api, otherKey, theirs);

      // Events of two days ago, more than two batches of ERASURE_BATCH_ROWS (2,000, in the
      // worker's maintenance loop) hold. A batch takes the account's events partition by
      // partition, oldest first: two batches take only these, the third reaches today's.
      const bulk = Array.from({ length: 4_100 }, (_, i) =>
        uuidv7({ msecs: scratch.today - 2 * DAY_MS + 1_000 + i }),
      );
      await api.deps.db.pool.query(
        `INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, received_at)
         SELECT id, $2, 'article.create', $3, 'erasure-test', 'succeeded', now() - interval '2 days'
         FROM unnest($1::uuid[]) AS id`,
        [bulk, account.id, JSON.stringify({ title: canary })],
      );
      await writeArchive('webhook_logs_p20260102', [
        { id: '00000000-0000-7000-8000-000000000003', accountId: account.id, canary },
      ]);

      const expected = await holdings(account.id, canary);
      expect(expected).toMatchObject({ categories: 1, article_slug_counters: 1 });
      const othersBefore = await rowsHolding(other.id);
      const left = async () => (await holdings(account.id, canary)).webhook_logs ?? 0;

      // One of today's events, held by another transaction, keeps the third batch waiting.
      const holder = await scratch.connect();
      let id = '';
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM webhook_logs WHERE id = $1 FOR KEY SHARE', [applied[0]]);
        const started = await api.app.inject({
          method: 'DELETE',
          url: `/api/admin/accounts/${account.id}`,
          headers: bearer(admin.token),
        });
        expect(started.statusCode, started.body).toBe(202);
        id = started.json<{ id: string }>().id;
        await expect
          .poll(
            async () => {
              const { rows } = await api.deps.db.pool.query<{ n: number }>(
                `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                 WHERE NOT l.granted AND a.query LIKE '%webhook_logs%' AND a.pid <> $1`,
                [(holder as unknown as { processID: number }).processID],
              );
              return { waiting: (rows[0]?.n ?? 0) > 0, left: await left() };
            },
            { timeout: 30_000 },
          )
          .toEqual({ waiting: true, left: expected.webhook_logs! - 2 * 2_000 });
        await worker.stop('SIGKILL');
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      expect((await erasureOf(id)).finishedAt).toBeNull();
      expect(await left()).toBeGreaterThan(0);

      worker = await startWorkerProcess(api.tag, workerEnv);
      await finished(id);
      const record = await erasureOf(id);
      expect(record.counts).toMatchObject(expected);
      // Its event's line and its attempt's.
      expect(record.archives).toEqual({ 'webhook_logs_p20260102.ndjson.gz': 2 });
      for (const needle of [account.id, canary]) {
        expect(await rowsHolding(needle)).toEqual([]);
        expect(await redisHolding(needle)).toEqual([]);
        for (const [file, text] of await archiveTexts()) expect(text, file).not.toContain(needle);
      }
      expect(await rowsHolding(other.id)).toEqual(othersBefore);
      const read = await api.app.inject({ method: 'GET', url: `/api/articles/${otherSlug}` });
      expect(read.statusCode).toBe(200);
    },
  );

  it('is one CLI command for an operator, which asks for --yes', { timeout: 120_000 }, async () => {
    const account = await registerAccount(api);
    const config = await mkdtemp(join(tmpdir(), 'ingest-erasure-cli-'));
    try {
      const env = { XDG_CONFIG_HOME: config, INGEST_PASSWORD: admin.password };
      const ingest = (...args: string[]) =>
        runTsEntry('packages/client/src/cli/main.ts', { args, env, timeoutMs: 90_000 });
      expect((await ingest('--service', base, 'login', '--email', admin.email)).code).toBe(0);
      const unconfirmed = await ingest('operator', 'erase', account.handle);
      expect(unconfirmed.code).not.toBe(0);
      expect(unconfirmed.stderr).toContain('--yes');
      expect(await rowsHolding(account.id)).not.toEqual([]);

      const erased = await ingest('operator', 'erase', account.handle, '--yes', '--wait');
      expect(erased.code, erased.stderr).toBe(0);
      const record = JSON.parse(erased.stdout) as { finishedAt: string | null; accountId: null };
      expect(record.finishedAt).not.toBeNull();
      expect(record.accountId).toBeNull();
      expect(await rowsHolding(account.id)).toEqual([]);
    } finally {
      await rm(config, { recursive: true, force: true });
    }
  });
});
