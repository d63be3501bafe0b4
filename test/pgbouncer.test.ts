// The API and a worker process with DATABASE_URL through PgBouncer 1.18 in transaction
// mode, on its default settings, and DATABASE_DIRECT_URL to PostgreSQL itself: every
// path of an event works as it does directly, and the traffic did go through the pooler.
import { startPgBouncer, type PrivatePgBouncer } from '@ingest/test-harness/pgbouncer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import {
  expectEveryAuthenticationPathUnavailable,
  freshCredentials,
} from './support/auth-paths.js';
import { accept, articleData, finalReceipt, sendEvent, uniqueSlug } from './support/content.js';
import { TEST_DATABASE_URL } from './support/test-database.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let pooler: PrivatePgBouncer;
let api: TestApi;
let worker: WorkerProcess;
let key: string;
const database = new URL(TEST_DATABASE_URL).pathname.slice(1);

beforeAll(async () => {
  pooler = await startPgBouncer(TEST_DATABASE_URL);
  const env = {
    DATABASE_URL: pooler.urlFor(TEST_DATABASE_URL),
    DATABASE_DIRECT_URL: TEST_DATABASE_URL,
  };
  api = await startTestApi(env);
  worker = await startWorkerProcess(api.tag, env);
  ({ key } = await createKey(api, await registerAccount(api)));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await pooler?.destroy();
});

describe('through PgBouncer in transaction mode', () => {
  it('says so at start, with the session settings the database gives (JIT off by migration)', () => {
    const lines = api.logLines.map((line) => JSON.parse(line) as { msg?: string });
    const pooled = lines.find((line) => line.msg?.startsWith('database through a pooler'));
    expect(pooled).toMatchObject({ jit: 'off' });
  });

  it('applies a burst of events, each statement on whichever server connection is free', async () => {
    const before = await pooler.stats(database);
    const slugs = Array.from({ length: 40 }, () => uniqueSlug('pooled'));
    // Concurrent batches of the same named statements, on more server connections than
    // one: a name prepared on one connection and run on another would fail.
    const ids = await Promise.all(
      slugs.map((slug) => accept(api, key, 'article.create', articleData({ slug }))),
    );
    const updates = await Promise.all(
      slugs.map((slug) => accept(api, key, 'article.update', { slug, title: `New ${slug}` })),
    );
    for (const id of [...ids, ...updates]) {
      expect((await finalReceipt(api, key, id)).status).toBe('succeeded');
    }
    const read = await api.app.inject({ method: 'GET', url: `/api/articles/${slugs[0]}` });
    expect(read.json()).toMatchObject({ slug: slugs[0], title: `New ${slugs[0]}` });
    const after = await pooler.stats(database);
    expect(after.transactions - before.transactions).toBeGreaterThan(80);
  });

  it('answers Prefer: wait when the event is applied: LISTEN goes direct', async () => {
    const slug = uniqueSlug('waited');
    const response = await sendEvent(api, key, 'article.create', articleData({ slug }), {
      prefer: 'wait=10',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: 'succeeded', result: { slug } });
  });

  it('replays an Idempotency-Key and runs the operators search over every partition', async () => {
    const data = articleData({ slug: uniqueSlug('keyed') });
    const headers = { 'idempotency-key': uniqueSlug('key') };
    const first = await sendEvent(api, key, 'article.create', data, headers);
    const again = await sendEvent(api, key, 'article.create', data, headers);
    expect(first.statusCode, first.body).toBe(202);
    expect(again.json<{ id: string }>().id).toBe(first.json<{ id: string }>().id);

    const admin = await registerAdmin(api);
    for (let round = 0; round < 3; round += 1) {
      const search = await api.app.inject({
        method: 'GET',
        url: `/api/admin/events?event=article.create&limit=5`,
        headers: bearer(admin.token),
      });
      expect(search.statusCode, search.body).toBe(200);
    }
  });
});

describe('through PgBouncer without DATABASE_DIRECT_URL', () => {
  it('answers 503 with Retry-After on every authentication path, never 401', async () => {
    // Without the direct URL the pool sends its session settings as startup options,
    // which PgBouncer refuses: every query fails. That is the database's failure, not the
    // caller's: credentials must not be called wrong while they cannot be checked.
    const credentials = await freshCredentials(api);
    const misconfigured = await startTestApi({
      DATABASE_URL: pooler.urlFor(TEST_DATABASE_URL),
      JWT_SECRET: api.deps.config.auth.jwtSecret,
      // As shipped: requests wait their turn by account before they are authenticated.
      ADMISSION_CONCURRENCY: '128',
    });
    try {
      await expectEveryAuthenticationPathUnavailable(misconfigured, credentials);
    } finally {
      await misconfigured.close().catch(() => {});
    }
  });
});
