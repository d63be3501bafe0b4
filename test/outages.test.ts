// Redis and PostgreSQL going away and coming back, on private instances so the
// machine's shared servers are never touched.
import { startPrivateRedis, type PrivateRedis } from '@ingest/test-harness';
import { startPrivatePostgres, type PrivatePostgres } from '@ingest/test-harness/private-postgres';
import { readQueueDepth } from '@ingest/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import {
  expectEveryAuthenticationPathUnavailable,
  freshCredentials,
} from './support/auth-paths.js';
import {
  accept,
  articleData,
  finalReceipt,
  getReceipt,
  sendEvent,
  uniqueSlug,
} from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const FAST_RECOVERY = {
  RECONCILE_INTERVAL_MS: '300',
  RECONCILE_AFTER_MS: '500',
  DATABASE_OUTAGE_PAUSE_MS: '300',
};

describe('a Redis outage', () => {
  let redis: PrivateRedis;
  let api: TestApi;
  let worker: WorkerProcess | undefined;
  let key: string;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    api = await startTestApi({ REDIS_URL: redis.url });
    ({ key } = await createKey(api, await registerAccount(api)));
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await redis?.stop();
  });

  it('still answers 202 once the event is recorded, and the event is applied when Redis is back', async () => {
    worker = await startWorkerProcess(api.tag, { REDIS_URL: redis.url, ...FAST_RECOVERY });
    const before = uniqueSlug();
    expect(
      (
        await finalReceipt(
          api,
          key,
          await accept(api, key, 'article.create', articleData({ slug: before })),
        )
      ).status,
    ).toBe('succeeded');

    await redis.stop();
    const during = uniqueSlug();
    const response = await sendEvent(api, key, 'article.create', articleData({ slug: during }));
    expect(response.statusCode).toBe(202);
    expect((await getReceipt(api, key, response.json().id)).json().status).toBe('queued');

    // Back, and empty: the job was never queued, so only the outbox can bring the event in.
    await redis.start();
    const receipt = await finalReceipt(api, key, response.json().id, 30_000);
    expect(receipt.status).toBe('succeeded');
    expect(await api.deps.db.prisma.article.findUnique({ where: { slug: during } })).not.toBeNull();
    expect(worker.lines.some((line) => line.includes('recorded event was not in the queue'))).toBe(
      true,
    );
  }, 60_000);

  it('recovers events that were queued in Redis when it lost everything', async () => {
    await worker?.stop();
    worker = undefined;
    const slugs = Array.from({ length: 5 }, () => uniqueSlug());
    const ids = [];
    for (const slug of slugs)
      ids.push(await accept(api, key, 'article.create', articleData({ slug })));
    expect((await readQueueDepth(api.deps.queues.all)).counts.waiting).toBeGreaterThanOrEqual(5);
    await redis.stop();
    await redis.start();
    worker = await startWorkerProcess(api.tag, { REDIS_URL: redis.url, ...FAST_RECOVERY });
    for (const id of ids)
      expect((await finalReceipt(api, key, id, 30_000)).status).toBe('succeeded');
    expect(await api.deps.db.prisma.article.count({ where: { slug: { in: slugs } } })).toBe(5);
  }, 60_000);
});

describe('a PostgreSQL outage', () => {
  let postgres: PrivatePostgres;
  let api: TestApi;
  let worker: WorkerProcess | undefined;
  let key: string;
  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    api = await startTestApi({ DATABASE_URL: postgres.url });
    ({ key } = await createKey(api, await registerAccount(api)));
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close().catch(() => {});
    await postgres?.destroy();
  });

  it('answers 503 UNAVAILABLE with Retry-After, at once and never a 2xx, then 202 when it is back', async () => {
    await postgres.stop();
    const response = await sendEvent(api, key, 'article.delete', { slug: 'x' });
    expectProblem(response, 503, 'UNAVAILABLE');
    expect(response.headers['retry-after']).toBe('5');
    // At once: the connection was refused, not waited for until a timeout.
    const failures = api.logLines
      .map((line) => JSON.parse(line) as { databaseFailure?: string })
      .flatMap((entry) => entry.databaseFailure ?? []);
    expect(failures).toContain('unreachable');
    expect(failures).not.toContain('timeout');
    await postgres.start();
    await expect
      .poll(async () => (await sendEvent(api, key, 'article.delete', { slug: 'x' })).statusCode, {
        timeout: 10_000,
      })
      .toBe(202);
  }, 30_000);

  it('answers 503 with Retry-After on every authentication path, never 401', async () => {
    const credentials = await freshCredentials(api);
    await postgres.stop();
    try {
      await expectEveryAuthenticationPathUnavailable(api, credentials);
    } finally {
      await postgres.start();
    }
  }, 30_000);

  it('pauses the worker, which resumes by itself; jobs in flight are retried, not failed', async () => {
    worker = await startWorkerProcess(api.tag, {
      DATABASE_URL: postgres.url,
      JOB_ATTEMPTS: '2',
      ...FAST_RECOVERY,
    });
    const ids = [];
    for (let i = 0; i < 20; i += 1)
      ids.push(await accept(api, key, 'article.create', articleData({ slug: uniqueSlug() })));
    await postgres.stop('immediate');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await postgres.start();
    const receipts = [];
    for (const id of ids) receipts.push(await finalReceipt(api, key, id, 30_000));
    expect(receipts.map((receipt) => receipt.status)).toEqual(Array(20).fill('succeeded'));
  }, 60_000);
});
