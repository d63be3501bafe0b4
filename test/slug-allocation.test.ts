// Slugs derived from one title by creates that race: the events of one account about a
// title stand in one line, but two accounts' do not, so two worker processes apply them
// in transactions at once, each finding the same suffix free. Every create must still
// get a slug of its own, the title's, then -2, -3, ..., none lost and none twice. The
// numbers come from a counter per title: one that an article already holds (named
// explicitly, or made before the counter) is skipped, and a deleted one is not given again.
import { slugFromTitle } from '@ingest/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, acceptBatch, articleData, finalReceipt, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const ACCOUNTS = 4;
const CREATES_EACH = 10;

let api: TestApi;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  api = await startTestApi();
  workers.push(await startWorkerProcess(api.tag), await startWorkerProcess(api.tag));
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop('SIGTERM')));
  await api?.close();
});

describe('slugs derived from one title', () => {
  it('are all distinct and gapless when accounts create it at once over two workers', async () => {
    const keys = [];
    for (let i = 0; i < ACCOUNTS; i += 1) {
      keys.push((await createKey(api, await registerAccount(api))).key);
    }
    const title = `Race ${uniqueSlug('title')}`;
    const ids = await Promise.all(
      keys.flatMap((key) =>
        Array.from({ length: CREATES_EACH }, async () => ({
          key,
          id: await accept(api, key, 'article.create', { title, body: ['Text.'] }),
        })),
      ),
    );
    const receipts = await Promise.all(ids.map(({ key, id }) => finalReceipt(api, key, id)));
    expect(receipts.map((receipt) => receipt.status)).toEqual(ids.map(() => 'succeeded'));
    const slugs = receipts.map((receipt) => (receipt.result as { slug: string }).slug);
    const base = slugFromTitle(title);
    const expected = Array.from({ length: ids.length }, (_, i) =>
      i === 0 ? base : `${base}-${i + 1}`,
    );
    expect([...slugs].sort()).toEqual([...expected].sort());
    const stored = await api.deps.db.prisma.article.count({ where: { slug: { in: expected } } });
    expect(stored).toBe(ids.length);
  }, 60_000);

  it('skip numbers an article already holds and never give a number twice', async () => {
    const { key } = await createKey(api, await registerAccount(api));
    const slugOf = async (event: string, data: unknown) => {
      const receipt = await finalReceipt(api, key, await accept(api, key, event, data));
      return receipt.status === 'succeeded'
        ? (receipt.result as { slug: string }).slug
        : (receipt.error as { code: string }).code;
    };
    const title = `Digest ${uniqueSlug('t')}`;
    const base = slugFromTitle(title);
    const create = () => slugOf('article.create', { title, body: ['Text.'] });

    // Made before the counter existed: the title's slug and -2, -3.
    for (const slug of [base, `${base}-2`, `${base}-3`]) {
      expect(await slugOf('article.create', articleData({ slug }))).toBe(slug);
    }
    expect(await create()).toBe(`${base}-4`);
    expect(await slugOf('article.create', articleData({ slug: `${base}-5` }))).toBe(`${base}-5`);
    expect(await create()).toBe(`${base}-6`);
    expect(await slugOf('article.delete', { slug: `${base}-6` })).toBe(`${base}-6`);
    expect(await create()).toBe(`${base}-7`);
    // A freed slug can still be named explicitly.
    expect(await slugOf('article.create', articleData({ slug: `${base}-6` }))).toBe(`${base}-6`);
  }, 60_000);

  it('give the creates of a title in one batch consecutive numbers, in the order sent', async () => {
    const { key } = await createKey(api, await registerAccount(api));
    const title = `Batch ${uniqueSlug('t')}`;
    const base = slugFromTitle(title);
    const ids = await acceptBatch(api, key, [
      { event: 'article.create', data: { title, body: ['One.'] } },
      { event: 'article.create', data: { slug: base, title, body: ['Two.'] } },
      { event: 'article.create', data: { title, body: ['Three.'] } },
      { event: 'article.create', data: { title, body: ['Four.'] } },
    ]);
    const outcomes = [];
    for (const id of ids) {
      const receipt = await finalReceipt(api, key, id);
      outcomes.push(
        receipt.status === 'succeeded'
          ? (receipt.result as { slug: string }).slug
          : (receipt.error as { code: string }).code,
      );
    }
    expect(outcomes).toEqual([base, 'SLUG_TAKEN', `${base}-2`, `${base}-3`]);
  }, 60_000);
});
