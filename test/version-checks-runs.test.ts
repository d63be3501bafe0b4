// Version checks inside a run: a head's queued followers applied with it in one
// transaction. Each `ifVersion` is checked against the version the events before it in the
// run left, as if each were applied alone; one that fails changes nothing and fails
// alone. The events are claimed and applied by the test (no worker process), so that they
// are a run by construction, not by a race.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { startApplyBatcher } from './support/apply-batcher.js';
import { accept, articleData, finalReceipt, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
let key: string;
let applyAsHeads: ReturnType<typeof startApplyBatcher>['applyAsHeads'];
beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await createKey(api, await registerAccount(api)));
  ({ applyAsHeads } = startApplyBatcher(api));
});
afterAll(async () => {
  await api?.close();
});

/** An article at version 1, created and applied. */
async function createdArticle(): Promise<string> {
  const slug = uniqueSlug('run');
  const [created] = await applyAsHeads([
    await accept(api, key, 'article.create', articleData({ slug, title: 'v1' })),
  ]);
  expect(created?.outcome).toMatchObject({ ok: true, value: { slug, version: 1 } });
  return slug;
}

/**
 * Accepts the events of one slug, then applies the first as a head: the others, queued
 * behind it, are its run. Returns each event's outcome (ok, or its error code and the
 * version it saw), in order.
 */
async function applyAsRun(events: Array<[event: string, data: object]>) {
  const ids: string[] = [];
  for (const [event, data] of events) ids.push(await accept(api, key, event, data));
  const [applied] = await applyAsHeads(ids.slice(0, 1));
  const followers = applied?.followers ?? [];
  // Every event after the head went in its run: otherwise this tests no run at all.
  expect(followers.map(({ row }) => row.id)).toEqual(ids.slice(1));
  const outcomes = [applied?.outcome, ...followers.map(({ outcome }) => outcome)].map((outcome) =>
    outcome?.ok
      ? { version: outcome.value.type === 'article' ? outcome.value.version : undefined }
      : { code: outcome?.error.code, currentVersion: outcome?.error.extensions.currentVersion },
  );
  return { ids, outcomes };
}

const stored = (slug: string) =>
  api.deps.db.prisma.article.findUnique({
    where: { slug },
    select: { title: true, version: true, updatedAt: true },
  });

describe('version checks in a run of updates', () => {
  it('check each update against the version the one before it left: 1, 2, 3, ... all apply', async () => {
    const slug = await createdArticle();
    const updates = [1, 2, 3, 4, 5].map((version): [string, object] => [
      'article.update',
      { slug, ifVersion: version, title: `after ${version}` },
    ]);
    const { ids, outcomes } = await applyAsRun(updates);
    expect(outcomes).toEqual([2, 3, 4, 5, 6].map((version) => ({ version })));
    expect(await stored(slug)).toMatchObject({ title: 'after 5', version: 6 });
    for (const [index, id] of ids.entries()) {
      expect(await finalReceipt(api, key, id)).toMatchObject({
        status: 'succeeded',
        result: { slug, version: index + 2 },
        error: null,
      });
    }
  });

  it('fail a stale update alone: the others apply, each checked against what the last success left', async () => {
    const slug = await createdArticle();
    const { ids, outcomes } = await applyAsRun([
      ['article.update', { slug, ifVersion: 1, title: 'first' }],
      ['article.update', { slug, ifVersion: 1, title: 'stale' }],
      ['article.update', { slug, ifVersion: 2, title: 'second' }],
      ['article.update', { slug, ifVersion: 9, title: 'ahead' }],
      ['article.update', { slug, excerpt: 'unchecked' }],
    ]);
    expect(outcomes).toEqual([
      { version: 2 },
      { code: 'VERSION_CONFLICT', currentVersion: 2 },
      { version: 3 },
      { code: 'VERSION_CONFLICT', currentVersion: 3 },
      { version: 4 },
    ]);
    expect(await stored(slug)).toMatchObject({ title: 'second', version: 4 });
    expect(await finalReceipt(api, key, ids[1]!)).toMatchObject({
      status: 'failed',
      result: null,
      error: {
        code: 'VERSION_CONFLICT',
        message: `Your article "${slug}" is at version 2, not 1`,
        currentVersion: 2,
      },
    });
    const receipts = await api.deps.db.prisma.webhookLog.findMany({
      where: { id: { in: ids } },
      select: { finishedAt: true },
    });
    // One commit recorded the failures with the successes: nothing was rolled back.
    expect(new Set(receipts.map((receipt) => receipt.finishedAt?.getTime())).size).toBe(1);
  });

  it('write nothing when every update of the run fails its check', async () => {
    const slug = await createdArticle();
    const before = await stored(slug);
    const { outcomes } = await applyAsRun([
      ['article.update', { slug, ifVersion: 2, title: 'never' }],
      ['article.update', { slug, ifVersion: 3, title: 'never either' }],
    ]);
    expect(outcomes).toEqual([
      { code: 'VERSION_CONFLICT', currentVersion: 1 },
      { code: 'VERSION_CONFLICT', currentVersion: 1 },
    ]);
    expect(await stored(slug)).toEqual(before);
  });

  it('check a delete behind the run against the version the updates left', async () => {
    const slug = await createdArticle();
    const { outcomes } = await applyAsRun([
      ['article.update', { slug, ifVersion: 1, title: 'updated' }],
      ['article.delete', { slug, ifVersion: 1 }],
      ['article.delete', { slug, ifVersion: 2 }],
    ]);
    expect(outcomes).toEqual([
      { version: 2 },
      { code: 'VERSION_CONFLICT', currentVersion: 2 },
      // The delete's own version, one more than the article's last.
      { version: 3 },
    ]);
    expect(await stored(slug)).toBeNull();
  });
});
