// Optimistic version checks: article.update and article.delete with `ifVersion` apply only
// when the article is at that version; otherwise they fail at once with VERSION_CONFLICT
// and the version found. Reads and receipts show the version to send back. Through the
// whole pipeline: API, Redis, a real worker process, PostgreSQL. (Checks inside a run,
// made one by construction: version-checks-runs.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import {
  accept,
  articleData,
  finalReceipt,
  getReceipt,
  sendEvent,
  uniqueSlug,
} from './support/content.js';
import { expectProblem } from './support/problems.js';
import { readOk } from './support/reads-content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let api: TestApi;
let worker: WorkerProcess;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  worker = await startWorkerProcess(api.tag);
  ({ key } = await createKey(api, await registerAccount(api)));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

/** Sends an event and waits for its final receipt. */
const outcomeOf = async (event: string, data: object, as = key) =>
  finalReceipt(api, as, await accept(api, as, event, data));

/** A new article of `key`'s account, at version 1. */
async function createdArticle(): Promise<string> {
  const slug = uniqueSlug('versioned');
  const receipt = await outcomeOf('article.create', articleData({ slug, title: 'v1' }));
  expect(receipt).toMatchObject({ status: 'succeeded', result: { slug, version: 1 } });
  return slug;
}

const stored = (slug: string) =>
  api.deps.db.prisma.article.findUnique({
    where: { slug },
    select: { title: true, version: true, updatedAt: true },
  });

interface ReadArticle {
  slug: string;
  title: string;
  version: number;
}

describe('article.update with ifVersion', () => {
  it('applies at the version given, and the receipt and reads show the version it reached', async () => {
    const slug = await createdArticle();
    const receipt = await outcomeOf('article.update', { slug, ifVersion: 1, title: 'v2' });
    expect(receipt).toMatchObject({
      status: 'succeeded',
      error: null,
      result: { type: 'article', slug, version: 2 },
    });
    expect(await readOk<ReadArticle>(api, `/api/articles/${slug}`)).toMatchObject({
      title: 'v2',
      version: 2,
    });
    const list = await readOk<{ items: ReadArticle[] }>(api, '/api/articles?limit=100');
    expect(list.items.find((item) => item.slug === slug)).toMatchObject({ version: 2 });
  });

  it('fails at another version with VERSION_CONFLICT and the current version, at once, changing nothing', async () => {
    const slug = await createdArticle();
    await outcomeOf('article.update', { slug, title: 'v2' });
    const before = await stored(slug);
    for (const stale of [1, 3]) {
      const receipt = await outcomeOf('article.update', { slug, ifVersion: stale, title: 'lost' });
      expect(receipt).toMatchObject({
        status: 'failed',
        attempts: 1,
        result: null,
        error: {
          code: 'VERSION_CONFLICT',
          message: `Your article "${slug}" is at version 2, not ${stale}`,
          currentVersion: 2,
        },
      });
    }
    expect(await stored(slug)).toEqual(before);
    expect(before).toMatchObject({ title: 'v2', version: 2 });
  });

  it('answers a Prefer: wait caller with a 409 problem that carries the current version', async () => {
    const slug = await createdArticle();
    const response = await sendEvent(
      api,
      key,
      'article.update',
      { slug, ifVersion: 7, title: 'lost' },
      { prefer: 'wait=10' },
    );
    const problem = expectProblem(response, 409, 'VERSION_CONFLICT');
    expect(problem).toMatchObject({
      type: '/problems/version-conflict',
      currentVersion: 1,
      instance: `/api/webhooks/content/${problem.eventId}`,
    });
  });

  it("treats another account's article as missing, without telling its version", async () => {
    const slug = await createdArticle();
    const other = await createKey(api, await registerAccount(api));
    const receipt = await outcomeOf(
      'article.update',
      { slug, ifVersion: 5, title: 'x' },
      other.key,
    );
    expect(receipt).toMatchObject({ status: 'failed', error: { code: 'ARTICLE_NOT_FOUND' } });
    expect(receipt.error).not.toHaveProperty('currentVersion');
  });

  it('applies a burst of updates with ifVersion 1..N in order, ending at version N+1', async () => {
    const slug = await createdArticle();
    const versions = Array.from({ length: 12 }, (_, index) => index + 1);
    // Sent back to back, without waiting: the worker applies them as heads and runs.
    const ids: string[] = [];
    for (const version of versions) {
      ids.push(
        await accept(api, key, 'article.update', {
          slug,
          ifVersion: version,
          title: `after ${version}`,
        }),
      );
    }
    const receipts = await Promise.all(ids.map((id) => finalReceipt(api, key, id)));
    expect(receipts.map((receipt) => [receipt.status, receipt.result])).toEqual(
      versions.map((version) => [
        'succeeded',
        expect.objectContaining({ slug, version: version + 1 }),
      ]),
    );
    expect(await readOk<ReadArticle>(api, `/api/articles/${slug}`)).toMatchObject({
      title: 'after 12',
      version: 13,
    });
  });
});

describe('article.delete with ifVersion', () => {
  it('keeps the article at another version, and deletes it at its own', async () => {
    const slug = await createdArticle();
    await outcomeOf('article.update', { slug, title: 'v2' });
    const stale = await outcomeOf('article.delete', { slug, ifVersion: 1 });
    expect(stale).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'VERSION_CONFLICT', currentVersion: 2 },
    });
    expect(await stored(slug)).toMatchObject({ title: 'v2', version: 2 });

    const deleted = await outcomeOf('article.delete', { slug, ifVersion: 2 });
    // The delete has a version of its own, as its article.deleted message says.
    expect(deleted).toMatchObject({
      status: 'succeeded',
      result: { type: 'article', slug, deleted: true, version: 3 },
    });
    expect(await stored(slug)).toBeNull();
  });

  it('conflicts at the largest version there can be, rather than failing the statement', async () => {
    const slug = await createdArticle();
    const receipt = await outcomeOf('article.delete', { slug, ifVersion: 2 ** 31 - 1 });
    expect(receipt).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'VERSION_CONFLICT', currentVersion: 1 },
    });
  });

  it('fails with ARTICLE_NOT_FOUND, not a conflict, when there is no article', async () => {
    const receipt = await outcomeOf('article.delete', { slug: uniqueSlug('gone'), ifVersion: 1 });
    expect(receipt).toMatchObject({ status: 'failed', error: { code: 'ARTICLE_NOT_FOUND' } });
  });

  it('deletes without ifVersion whatever the version, as before', async () => {
    const slug = await createdArticle();
    await outcomeOf('article.update', { slug, title: 'v2' });
    expect(await outcomeOf('article.delete', { slug })).toMatchObject({
      status: 'succeeded',
      result: { deleted: true, version: 3 },
    });
  });
});

describe('an invalid ifVersion', () => {
  it.each([
    ['0', 0],
    ['a string', 'x'],
    ['1.5', 1.5],
    ['negative', -1],
    ['null', null],
    // Past what the int4 column holds: no version can be that.
    ['2^31', 2 ** 31],
  ])(
    'of %s is 400 VALIDATION_FAILED on data.ifVersion, recorded as rejected',
    async (_label, ifVersion) => {
      for (const [event, data] of [
        ['article.update', { slug: 'any-slug', ifVersion, title: 'T' }],
        ['article.delete', { slug: 'any-slug', ifVersion }],
      ] as const) {
        const problem = expectProblem(
          await sendEvent(api, key, event, data),
          400,
          'VALIDATION_FAILED',
        );
        expect(problem.errors?.map((error) => error.path)).toEqual(['data.ifVersion']);
        expect((await getReceipt(api, key, problem.eventId!)).json()).toMatchObject({
          event,
          status: 'rejected',
          error: { code: 'VALIDATION_FAILED' },
        });
      }
    },
  );
});
