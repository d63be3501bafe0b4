// SIGTERM during deploys: the API finishes what it has started; the worker finishes its
// jobs within the grace period or hands them back, and nothing is lost or doubled.
import { randomBytes } from 'node:crypto';
import { freePort } from '@ingest/test-harness';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import {
  accept,
  articleData,
  finalReceipt,
  getReceipt,
  jobStateOf,
  uniqueSlug,
} from './support/content.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startAppProcess, startWorkerProcess } from './support/worker-process.js';

let scratch: ScratchDatabase;
let api: TestApi;
let key: string;
beforeAll(async () => {
  scratch = await createScratchDatabase();
  api = await startTestApi({ DATABASE_URL: scratch.url });
  ({ key } = await createKey(api, await registerAccount(api)));
});
afterAll(async () => {
  await api?.close();
  await scratch?.drop();
});

async function lockArticles(): Promise<pg.Client> {
  const client = await scratch.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE articles IN ACCESS EXCLUSIVE MODE');
  return client;
}

describe('SIGTERM on the API', () => {
  it('finishes the requests in flight, refuses new ones, and exits 0', async () => {
    const port = await freePort();
    const server = await startAppProcess('apps/api/src/server.ts', /Server listening/, {
      DATABASE_URL: scratch.url,
      REDIS_KEY_PREFIX: `test:${api.tag}`,
      JWT_SECRET: randomBytes(32).toString('hex'),
      PORT: String(port),
    });
    const base = `http://127.0.0.1:${port}`;
    // No worker runs for this prefix... so `Prefer: wait=2` keeps the request in flight.
    const inFlight = fetch(`${base}/api/webhooks/content`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, prefer: 'wait=2' },
      body: JSON.stringify({ event: 'article.delete', data: { slug: 'x' } }),
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const exitCode = server.stop('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Refused: the connection is refused once the listener is closed; in the moment before
    // that, a request on a new connection is answered 503 UNAVAILABLE, as a problem.
    const late = await fetch(`${base}/api/auth/me`).catch((error: unknown) => error);
    if (late instanceof Response) {
      expect(late.status).toBe(503);
      expect(late.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    } else expect(late).toBeInstanceOf(Error);
    const response = await inFlight;
    expect(response.status).toBe(202);
    expect(response.headers.get('connection')).toBe('close');
    expect(await exitCode).toBe(0);
    expect(server.lines.some((line) => line.includes('shut down cleanly'))).toBe(true);
  });
});

describe('SIGTERM on a worker', () => {
  // Every worker of this file shares one queue. BullMQ checks for stalled jobs at most once
  // per stalledInterval per queue, enforced by a key that lives for the interval of the
  // worker that checked last: a worker with the default 30 s lock would keep the next
  // test's workers from recovering the handed-back job for up to 30 s.
  const LOCK_MS = '2000';

  it('finishes a job in flight within the grace period, then exits', async () => {
    const worker = await startWorkerProcess(api.tag, {
      DATABASE_URL: scratch.url,
      WORKER_SHUTDOWN_GRACE_MS: '10000',
      WORKER_LOCK_DURATION_MS: LOCK_MS,
    });
    const lock = await lockArticles();
    const id = await accept(api, key, 'article.create', articleData({ slug: uniqueSlug() }));
    await expect.poll(() => jobStateOf(api, id)).toBe('active');
    const stopped = worker.stop('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await lock.query('ROLLBACK');
    await lock.end();
    expect(await stopped).toBe(0);
    expect((await getReceipt(api, key, id)).json()).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
  });

  it('hands a job back when the grace period runs out, and another worker applies it once', async () => {
    const first = await startWorkerProcess(api.tag, {
      DATABASE_URL: scratch.url,
      WORKER_SHUTDOWN_GRACE_MS: '500',
      WORKER_LOCK_DURATION_MS: LOCK_MS,
    });
    const lock = await lockArticles();
    const slug = uniqueSlug();
    const id = await accept(api, key, 'article.create', articleData({ slug }));
    await expect.poll(() => jobStateOf(api, id)).toBe('active');
    // The job cannot finish while the table is locked: the worker exits 0 (not killed by
    // stop()'s SIGKILL) only because it gave up waiting for the job, when the grace ran out.
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.lines.some((line) => line.includes('grace period over'))).toBe(true);
    await lock.query('ROLLBACK');
    await lock.end();

    const second = await startWorkerProcess(api.tag, {
      DATABASE_URL: scratch.url,
      WORKER_LOCK_DURATION_MS: LOCK_MS,
    });
    try {
      const receipt = await finalReceipt(api, key, id, 30_000);
      expect(receipt.status).toBe('succeeded');
      expect(await api.deps.db.prisma.article.count({ where: { slug } })).toBe(1);
      const attempts = await api.deps.db.prisma.eventAttempt.findMany({
        where: { eventId: id },
        orderBy: { number: 'asc' },
      });
      // The first delivery claims its event in the transaction that applies it, which the
      // handed-back run never committed: the attempt that counts is the second worker's.
      expect(attempts.map((attempt) => attempt.outcome)).toEqual(['succeeded']);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
