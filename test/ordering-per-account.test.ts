// Order is promised per account and slug (a line): a burst about one slug is applied in
// acceptance order, in runs, and another account's events about the same slug never
// hold it up. A real worker process applies everything.
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
import { TEST_DATABASE_URL } from './support/test-database.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let api: TestApi;
let worker: WorkerProcess;
let owner: string;
let foreigner: string;
beforeAll(async () => {
  api = await startTestApi();
  worker = await startWorkerProcess(api.tag, { WORKER_CONCURRENCY: '16' });
  ({ key: owner } = await createKey(api, await registerAccount(api)));
  ({ key: foreigner } = await createKey(api, await registerAccount(api)));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

const statusOf = async (key: string, id: string) =>
  (await getReceipt(api, key, id)).json<{ status: string }>().status;

/** Sends events one after another (each after the previous 202), while the queue is paused. */
async function acceptWhilePaused(key: string, events: Array<[string, object]>) {
  await api.deps.queues.pause(true);
  try {
    const ids: string[] = [];
    for (const [event, data] of events) ids.push(await accept(api, key, event, data));
    return ids;
  } finally {
    await api.deps.queues.pause(false);
  }
}

describe('a hot slug', () => {
  it('applies a burst in acceptance order, in runs', async () => {
    // Every event succeeds only if each one before it took effect first: an update or a
    // delete before its create finds no article, a create before the delete finds the slug
    // taken.
    const slug = uniqueSlug('hot');
    const events: Array<[string, object]> = [];
    for (let round = 0; round < 50; round += 1) {
      events.push(
        ['article.create', articleData({ slug, title: `created ${round}` })],
        ['article.update', { slug, title: `updated ${round}` }],
        ['article.update', { slug, excerpt: `excerpt ${round}` }],
        ['article.delete', { slug }],
      );
    }
    events.push(
      ['article.create', articleData({ slug, title: 'last create' })],
      ['article.update', { slug, title: 'final', readMinutes: 7 }],
    );
    const runLinesBefore = worker.lines.filter((line) => line.includes('in the run of')).length;

    const ids = await acceptWhilePaused(owner, events);

    const receipts = await Promise.all(ids.map((id) => finalReceipt(api, owner, id, 60_000)));
    const failed = receipts.filter((receipt) => receipt.status !== 'succeeded');
    expect(failed, JSON.stringify(failed.slice(0, 3))).toEqual([]);
    const article = await api.deps.db.prisma.article.findUnique({ where: { slug } });
    expect(article).toMatchObject({ title: 'final', readMinutes: 7, excerpt: 'A short summary' });
    // Most of the burst rode on the runs of earlier events (one transaction for many).
    const inRuns =
      worker.lines.filter((line) => line.includes('in the run of')).length - runLinesBefore;
    expect(inRuns).toBeGreaterThan(events.length / 2);
  }, 90_000);

  it('waits for both of its slugs when it renames', async () => {
    const [from, to] = [uniqueSlug('from'), uniqueSlug('to')];
    await finalReceipt(
      api,
      owner,
      await accept(api, owner, 'article.create', articleData({ slug: from })),
    );
    // The create of `to` is accepted first: the rename onto `to` must wait for it, and
    // then find the slug taken.
    const [create, rename] = await acceptWhilePaused(owner, [
      ['article.create', articleData({ slug: to, title: 'first' })],
      ['article.update', { slug: from, newSlug: to }],
    ]);
    expect((await finalReceipt(api, owner, create!)).status).toBe('succeeded');
    expect(await finalReceipt(api, owner, rename!)).toMatchObject({
      status: 'failed',
      error: { code: 'SLUG_TAKEN' },
    });
  });
});

describe("another account's events about the same slug", () => {
  it("never delay the owner's", async () => {
    const slug = uniqueSlug('owned');
    const theirs = uniqueSlug('theirs');
    await finalReceipt(
      api,
      owner,
      await accept(api, owner, 'article.create', articleData({ slug })),
    );
    await finalReceipt(
      api,
      foreigner,
      await accept(api, foreigner, 'article.create', articleData({ slug: theirs })),
    );

    // The foreigner renames its article onto the owner's slug, and that rename is held in
    // its transaction (its article's row is locked here): every later event of theirs
    // about the slug waits behind it, for as long as the lock is held.
    const locker = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM articles WHERE slug = $1 FOR UPDATE', [theirs]);
      const rename = await accept(api, foreigner, 'article.update', {
        slug: theirs,
        newSlug: slug,
      });
      await expect.poll(() => jobStateOf(api, rename), { timeout: 10_000 }).toBe('active');
      const burst: string[] = [];
      for (let i = 0; i < 50; i += 1) {
        burst.push(await accept(api, foreigner, 'article.update', { slug, title: `theirs ${i}` }));
      }

      const mine = await accept(api, owner, 'article.update', { slug, title: 'mine' });
      expect((await finalReceipt(api, owner, mine, 8_000)).status).toBe('succeeded');
      // ... while every foreign event is still held.
      expect(await jobStateOf(api, rename)).toBe('active');
      expect(await statusOf(foreigner, rename)).toMatch(/^(queued|processing)$/);
      for (const id of burst) expect(await statusOf(foreigner, id)).toBe('queued');

      await locker.query('ROLLBACK');
      expect(await finalReceipt(api, foreigner, rename)).toMatchObject({
        status: 'failed',
        error: { code: 'SLUG_TAKEN' },
      });
      for (const id of burst) {
        expect(await finalReceipt(api, foreigner, id, 30_000)).toMatchObject({
          status: 'failed',
          error: { code: 'ARTICLE_NOT_FOUND' },
        });
      }
      expect(await api.deps.db.prisma.article.findUnique({ where: { slug } })).toMatchObject({
        title: 'mine',
      });
    } finally {
      await locker.end();
    }
  }, 60_000);
});
