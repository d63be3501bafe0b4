// Slugs derived from one title by creates that race: the events of one account about a
// title stand in one line, but two accounts' do not, so two worker processes apply them
// in transactions at once, each finding the same suffix free. Every create must still
// get a slug of its own, the title's, then -2, -3, ..., none lost and none twice.
import { slugFromTitle } from '@ingest/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, finalReceipt, uniqueSlug } from './support/content.js';
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
});
