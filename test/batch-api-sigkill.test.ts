// A batch call cut by a SIGKILL of the API, then sent again whole with the same keys, as
// a publisher that never got its answer does: each event is recorded once, whether the
// kill came before the call's transaction committed or after (answering with the ids
// the first call recorded).
//
// To kill at those moments on cue, the call's transaction is held at its lines' locks
// (this test holds one of them); for "after the commit", the API's Redis goes through a
// proxy that is made to swallow every byte before the lock is let go: the transaction
// commits, the enqueue that follows hangs, and the API is SIGKILLed then.
import { randomBytes } from 'node:crypto';
import { freePort, startTcpProxy, type TcpProxy } from '@ingest/test-harness';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { articleData, uniqueSlug } from './support/content.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './support/test-database.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startAppProcess, type AppProcess } from './support/worker-process.js';

let api: TestApi;
let account: RegisteredAccount;
let key: string;
let locker: pg.Client;
const cleanups: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  api = await startTestApi();
  account = await registerAccount(api);
  ({ key } = await createKey(api, account));
  locker = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await locker.connect();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await locker?.end();
  await api?.close();
});

async function startApiProcess(redisUrl: string): Promise<{ proc: AppProcess; base: string }> {
  const port = await freePort();
  const proc = await startAppProcess('apps/api/src/server.ts', /Server listening/, {
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `test:${api.tag}`,
    JWT_SECRET: randomBytes(32).toString('hex'),
    PORT: String(port),
  });
  cleanups.push(() => proc.stop('SIGKILL'));
  return { proc, base: `http://127.0.0.1:${port}` };
}

async function redisProxy(): Promise<TcpProxy> {
  const redis = new URL(TEST_REDIS_URL);
  const proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** 120 keyed events over 12 new slugs: each created, then updated nine times. */
function plannedBatch(stem: string) {
  const slugs = Array.from({ length: 12 }, (_, i) => uniqueSlug(`${stem}${i}`));
  const events = slugs.flatMap((slug) => [
    { event: 'article.create', data: articleData({ slug }), idempotencyKey: `${slug}-0` },
    ...Array.from({ length: 9 }, (_, k) => ({
      event: 'article.update',
      data: { slug, title: `v${k + 1}` },
      idempotencyKey: `${slug}-${k + 1}`,
    })),
  ]);
  return { slugs, body: JSON.stringify({ events }), count: events.length };
}

const send = (base: string, body: string) =>
  fetch(`${base}/api/webhooks/content/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body,
  });

/** Holds the line of the account's `slug`, as a batch recording into it does. */
async function holdLine(slug: string): Promise<() => Promise<void>> {
  const line = [`${account.id}/${slug}`];
  await locker.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', line);
  return async () => {
    await locker.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', line);
  };
}

const waitingForLock = async () =>
  (
    await locker.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
    )
  ).rows[0]?.n ?? 0;

const recordedOf = (slugs: string[]) =>
  api.deps.db.prisma.webhookLog.findMany({
    where: { accountId: account.id, orderKeys: { hasSome: slugs } },
    select: { id: true, payload: true, sequence: true },
    orderBy: { sequence: 'asc' },
  });

interface Results {
  results: Array<{ id: string; status?: string; replayed?: true; error?: unknown }>;
}

/** The call sent again to a new API: every event once, each with its one row's id. */
async function retryAndCheck(
  planned: ReturnType<typeof plannedBatch>,
  expectReplayed: boolean,
): Promise<void> {
  const { base } = await startApiProcess(TEST_REDIS_URL);
  const response = await send(base, planned.body);
  expect(response.status).toBe(200);
  const { results } = (await response.json()) as Results;
  expect(results).toHaveLength(planned.count);
  expect(results.every((result) => result.status === 'queued')).toBe(true);
  expect(results.every((result) => (result.replayed === true) === expectReplayed)).toBe(true);

  const rows = await recordedOf(planned.slugs);
  expect(rows).toHaveLength(planned.count);
  const ids = results.map((result) => result.id);
  expect(new Set(ids).size).toBe(planned.count);
  // Recorded in the call's order: its lines' order.
  expect(rows.map((row) => row.id)).toEqual(ids);
}

describe('a batch call whose API is SIGKILLed', () => {
  it('after its transaction committed: sent again, it answers with the recorded events and records none again', async () => {
    const planned = plannedBatch('after');
    const proxy = await redisProxy();
    const { proc, base } = await startApiProcess(`redis://127.0.0.1:${proxy.port}`);
    const release = await holdLine(planned.slugs[0] ?? '');
    const call = send(base, planned.body).catch((error: unknown) => error);
    await expect.poll(waitingForLock, { timeout: 10_000 }).toBeGreaterThan(0);

    proxy.blackhole();
    await release();
    await expect.poll(async () => (await recordedOf(planned.slugs)).length).toBe(planned.count);
    await proc.stop('SIGKILL');
    expect(await call).toBeInstanceOf(Error); // the publisher never got its answer

    await retryAndCheck(planned, true);
  }, 60_000);

  it('before its transaction committed: sent again, it records each event once', async () => {
    const planned = plannedBatch('before');
    const { proc, base } = await startApiProcess(TEST_REDIS_URL);
    const release = await holdLine(planned.slugs[0] ?? '');
    const call = send(base, planned.body).catch((error: unknown) => error);
    await expect.poll(waitingForLock, { timeout: 10_000 }).toBeGreaterThan(0);

    await proc.stop('SIGKILL');
    await release();
    expect(await call).toBeInstanceOf(Error);
    // The killed call's transaction rolls back once its session sees its client gone.
    await expect.poll(waitingForLock, { timeout: 10_000 }).toBe(0);
    expect(await recordedOf(planned.slugs)).toHaveLength(0);

    await retryAndCheck(planned, false);
  }, 60_000);
});
