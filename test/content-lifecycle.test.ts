// A receipt through its whole life, including attempts that fail for reasons outside
// the event (the database stalls) and are retried; and the promise behind a 202.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, articleData, getReceipt, sendEvent, uniqueSlug } from './support/content.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let scratch: ScratchDatabase;
let api: TestApi;
let worker: WorkerProcess | undefined;
let key: string;
beforeAll(async () => {
  scratch = await createScratchDatabase();
  api = await startTestApi({
    DATABASE_URL: scratch.url,
    JOB_ATTEMPTS: '3',
    JOB_BACKOFF_MS: '200',
    DATABASE_STATEMENT_TIMEOUT_MS: '1000',
  });
  const account = await registerAccount(api);
  ({ key } = await createKey(api, account));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await scratch?.drop();
});

async function lockTable(table: string): Promise<pg.Client> {
  const client = await scratch.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return client;
}
const unlock = async (client: pg.Client) => {
  await client.query('ROLLBACK');
  await client.end();
};

const receiptOf = async (id: string) => (await getReceipt(api, key, id)).json();

/** Polls until `predicate` holds for the receipt, recording every status seen on the way. */
async function watch(
  id: string,
  predicate: (receipt: Record<string, unknown>) => boolean,
  seen: Set<string>,
) {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const receipt = await receiptOf(id);
    seen.add(`${receipt.status}/${receipt.attempts}`);
    if (predicate(receipt)) return receipt;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`receipt ${id} never reached the expected state; saw ${[...seen].join(', ')}`);
}

describe('a receipt', () => {
  it('goes queued -> processing -> queued (retrying, with the reason) -> succeeded, and failed when attempts run out', async () => {
    const articles = await lockTable('articles');
    const highlights = await lockTable('highlights');
    const slug = uniqueSlug();
    const willRecover = await accept(api, key, 'article.create', articleData({ slug }));
    const willFail = await accept(api, key, 'highlight.create', {
      title: 'H',
      videoUrl: 'https://v.example/h',
    });
    expect(await receiptOf(willRecover)).toMatchObject({
      status: 'queued',
      attempts: 0,
      startedAt: null,
      finishedAt: null,
      result: null,
      error: null,
    });

    worker = await startWorkerProcess(api.tag, {
      DATABASE_URL: scratch.url,
      DATABASE_STATEMENT_TIMEOUT_MS: '1000',
    });
    const seen = new Set<string>();
    await watch(willRecover, (r) => r.status === 'processing' && r.attempts === 1, seen);
    const retrying = await watch(
      willRecover,
      (r) => r.status === 'queued' && r.attempts === 1,
      seen,
    );
    expect(retrying.error).toEqual({
      code: 'PROCESSING_FAILED',
      message: 'Attempt 1 failed because the database timed out; it will be retried',
    });
    expect(retrying.startedAt).not.toBeNull();
    await watch(willRecover, (r) => r.attempts === 2, seen);
    await unlock(articles);

    const succeeded = await watch(willRecover, (r) => r.status === 'succeeded', seen);
    expect(succeeded).toMatchObject({ error: null, result: { type: 'article', slug } });
    expect(succeeded.attempts).toBeGreaterThanOrEqual(2);
    expect(succeeded.finishedAt).not.toBeNull();
    const attempts = await api.deps.db.prisma.eventAttempt.findMany({
      where: { eventId: willRecover },
      orderBy: { number: 'asc' },
    });
    expect(attempts.at(-1)?.outcome).toBe('succeeded');
    expect(attempts.slice(0, -1).every((a) => a.outcome === 'retrying' && a.error !== null)).toBe(
      true,
    );

    const failed = await watch(willFail, (r) => r.status === 'failed', new Set());
    expect(failed).toMatchObject({
      attempts: 3,
      result: null,
      error: {
        code: 'PROCESSING_FAILED',
        message: 'Gave up after attempt 3: it failed because the database timed out',
      },
    });
    await unlock(highlights);
    expect(await api.deps.db.prisma.highlight.count()).toBe(0);
  }, 60_000);
});

describe('a 202', () => {
  it('is only ever sent for an event whose record is committed', async () => {
    for (let i = 0; i < 20; i += 1) {
      const response = await sendEvent(api, key, 'article.delete', { slug: uniqueSlug() });
      expect(response.statusCode).toBe(202);
      // Read back on a connection of our own, right after the answer.
      const reader = await scratch.connect();
      const { rowCount } = await reader.query('SELECT 1 FROM webhook_logs WHERE id = $1', [
        response.json().id,
      ]);
      await reader.end();
      expect(rowCount).toBe(1);
    }
  });

  it('is never sent when the record cannot be written, and nothing is queued', async () => {
    const lock = await lockTable('webhook_logs');
    const requestId = `durability-${uniqueSlug()}`;
    let response;
    try {
      response = await sendEvent(
        api,
        key,
        'article.delete',
        { slug: uniqueSlug() },
        { 'x-request-id': requestId },
      );
    } finally {
      await unlock(lock);
    }
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(await api.deps.db.prisma.webhookLog.count({ where: { requestId } })).toBe(0);
    const jobs = await api.deps.queues.all[0]!.getJobs([
      'waiting',
      'active',
      'delayed',
      'completed',
      'failed',
    ]);
    expect(jobs.filter((job) => job.data.requestId === requestId)).toEqual([]);
  });
});
