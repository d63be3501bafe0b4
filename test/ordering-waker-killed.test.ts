// A successor starts when its predecessor finishes, woken by the worker that finished it.
// If that worker dies between its commit and the wake, the successor must still run, by
// its own safety net (its park lasts WORKER_LOCK_DURATION_MS), on whichever worker is left.
//
// To kill the waker at exactly that moment, its Redis traffic goes through a proxy that
// is made to swallow every byte just before the predecessor is let through; the worker
// commits (PostgreSQL is direct), its wake hangs on Redis, and it is SIGKILLed then.
import { startTcpProxy, type TcpProxy } from '@ingest/test-harness';
import pg from 'pg';
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
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './support/test-database.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const LOCK_MS = '3000';

let api: TestApi;
let proxy: TcpProxy;
let key: string;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  api = await startTestApi();
  const redis = new URL(TEST_REDIS_URL);
  proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  ({ key } = await createKey(api, await registerAccount(api)));
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop('SIGKILL')));
  await proxy?.close();
  await api?.close();
});

const statusOf = async (id: string) =>
  (await getReceipt(api, key, id)).json<{ status: string }>().status;
const jobState = async (id: string) => (await api.deps.queues.all[0]!.getJob(id))?.getState();

describe('a successor whose waker was SIGKILLed', () => {
  it('still runs, on another worker, once its park runs out', async () => {
    const waker = await startWorkerProcess(api.tag, {
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      WORKER_LOCK_DURATION_MS: LOCK_MS,
    });
    workers.push(waker);
    const slug = uniqueSlug('woken');
    const renamed = `${slug}-renamed`;
    await finalReceipt(api, key, await accept(api, key, 'article.create', articleData({ slug })));

    // Hold the predecessor in its transaction: its article's row is locked here.
    const locker = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('SELECT 1 FROM articles WHERE slug = $1 FOR UPDATE', [slug]);
    const predecessor = await accept(api, key, 'article.update', { slug, title: 'first' });
    await expect.poll(() => jobStateOf(api, predecessor), { timeout: 10_000 }).toBe('active');
    // A rename stands in two lines, so it never rides in the predecessor's run: it must
    // be woken. It parks behind the predecessor.
    const successor = await accept(api, key, 'article.update', { slug, newSlug: renamed });
    await expect.poll(() => jobState(successor), { timeout: 10_000 }).toBe('delayed');

    proxy.blackhole();
    await locker.query('ROLLBACK');
    await locker.end();
    await expect.poll(() => statusOf(predecessor), { timeout: 10_000 }).toBe('succeeded');
    await waker.stop('SIGKILL');
    // Nobody woke it: it is still parked.
    expect(await jobState(successor)).toBe('delayed');
    expect(await statusOf(successor)).toBe('queued');

    workers.push(await startWorkerProcess(api.tag, { WORKER_LOCK_DURATION_MS: LOCK_MS }));
    expect((await finalReceipt(api, key, successor, 20_000)).status).toBe('succeeded');
    expect(await api.deps.db.prisma.article.findUnique({ where: { slug: renamed } })).toMatchObject(
      {
        title: 'first',
      },
    );
  }, 60_000);
});
