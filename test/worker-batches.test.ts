// A worker applies events that are ready together in one transaction. When one of them
// fails, the transaction is rolled back and the others are applied again: nothing of
// the failed one may stay behind, and nothing the rolled-back transaction saw may be
// trusted afterwards. The case that once went wrong: two events of a batch name a new
// category, the first creates it, the second found it (uncommitted) and remembered its
// id; a third event failed, the batch rolled back, and every later article under that
// category hit a foreign-key error against the vanished row.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, articleData, finalReceipt, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let api: TestApi;
let worker: WorkerProcess | undefined;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  const account = await registerAccount(api);
  ({ key } = await createKey(api, account));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

describe('events applied together', () => {
  it('a failing event rolls back only itself, and leaves no stale category behind', async () => {
    const category = `Batched ${randomBytes(4).toString('hex')}`;
    const taken = uniqueSlug('taken');
    // Queued with no worker running, so that the worker finds them all waiting and takes
    // many into one transaction.
    const sent: Array<{ id: string; expected: string }> = [];
    for (let i = 0; i < 24; i += 1) {
      const create = articleData({ slug: uniqueSlug('batched'), category });
      sent.push({ id: await accept(api, key, 'article.create', create), expected: 'succeeded' });
      if (i % 6 === 2) {
        const update = { slug: uniqueSlug('missing'), category };
        sent.push({ id: await accept(api, key, 'article.update', update), expected: 'failed' });
      }
    }
    const first = await accept(api, key, 'article.create', articleData({ slug: taken, category }));
    const second = await accept(api, key, 'article.create', articleData({ slug: taken }));
    sent.push({ id: first, expected: 'succeeded' }, { id: second, expected: 'failed' });

    worker = await startWorkerProcess(api.tag, { WORKER_CONCURRENCY: '32' });
    const receipts = await Promise.all(sent.map(({ id }) => finalReceipt(api, key, id, 30_000)));

    expect(receipts.map((receipt) => receipt.status)).toEqual(sent.map((s) => s.expected));
    // Each event took one attempt: none failed for a reason that was not its own.
    expect(receipts.map((receipt) => receipt.attempts)).toEqual(sent.map(() => 1));
    const errors = receipts.flatMap((receipt) =>
      receipt.status === 'failed' ? [(receipt.error as { code: string }).code] : [],
    );
    expect(errors).toEqual([...Array<string>(4).fill('ARTICLE_NOT_FOUND'), 'SLUG_TAKEN']);

    const stored = await api.deps.db.prisma.category.findMany({
      where: { name: category },
      select: { _count: { select: { articles: true } } },
    });
    expect(stored.map((row) => row._count.articles)).toEqual([25]);
  });
});
