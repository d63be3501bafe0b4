// The whole pipeline: API, Redis, a real worker process, PostgreSQL.
import { slugFromTitle } from '@ingest/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import {
  accept,
  articleData,
  finalReceipt,
  getReceipt,
  sendEvent,
  uniqueSlug,
} from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let api: TestApi;
let worker: WorkerProcess;
let account: RegisteredAccount;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  worker = await startWorkerProcess(api.tag);
  account = await registerAccount(api);
  ({ key } = await createKey(api, account));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

const article = (slug: string) =>
  api.deps.db.prisma.article.findUnique({ where: { slug }, include: { category: true } });

describe('article.create', () => {
  it('creates the article exactly as sent, owned by the key account', async () => {
    const slug = uniqueSlug();
    const data = articleData({
      slug,
      title: '  Crème brûlée — 日本語 🍣 ',
      body: ['¶ one', '', '  indented'],
      category: ` Food-${slug} `,
    });
    const receipt = await finalReceipt(api, key, await accept(api, key, 'article.create', data));
    expect(receipt).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      error: null,
      result: { type: 'article', slug },
    });
    const row = await article(slug);
    expect(row).toMatchObject({
      accountId: account.id,
      title: data.title,
      body: data.body,
      excerpt: data.excerpt,
      cover: data.cover,
      readMinutes: 3,
      readMinutesComputed: false,
    });
    expect(row?.category?.name).toBe(`Food-${slug}`);
    expect((receipt.result as { id: string }).id).toBe(row?.id);
  });

  it('derives the slug from the title, appending -2, -3 when taken, and computes readMinutes', async () => {
    const title = `Ünïque Tïtle ${uniqueSlug('t')}`;
    const data = { title, body: ['word '.repeat(450)] };
    const slugs = [];
    for (let i = 0; i < 3; i += 1) {
      const receipt = await finalReceipt(api, key, await accept(api, key, 'article.create', data));
      slugs.push((receipt.result as { slug: string }).slug);
    }
    const base = slugFromTitle(title);
    expect(base).toMatch(/^uenique-title-t-[0-9a-f]{8}$/);
    expect(slugs).toEqual([base, `${base}-2`, `${base}-3`]);
    expect((await article(base))?.readMinutes).toBe(3);
    expect((await article(base))?.readMinutesComputed).toBe(true);
  });

  it('matches an existing category ignoring case and spaces', async () => {
    const name = `Tech-${uniqueSlug()}`;
    const first = uniqueSlug();
    const second = uniqueSlug();
    await finalReceipt(
      api,
      key,
      await accept(api, key, 'article.create', articleData({ slug: first, category: name })),
    );
    await finalReceipt(
      api,
      key,
      await accept(
        api,
        key,
        'article.create',
        articleData({ slug: second, category: `  ${name.toUpperCase()}` }),
      ),
    );
    expect((await article(first))?.categoryId).toBe((await article(second))?.categoryId);
    expect((await article(second))?.category?.name).toBe(name);
  });

  it('fails with SLUG_TAKEN when an explicit slug is taken, at once and without retrying', async () => {
    const slug = uniqueSlug();
    await finalReceipt(api, key, await accept(api, key, 'article.create', articleData({ slug })));
    const receipt = await finalReceipt(
      api,
      key,
      await accept(api, key, 'article.create', articleData({ slug, title: 'Other' })),
    );
    expect(receipt).toMatchObject({
      status: 'failed',
      attempts: 1,
      result: null,
      error: { code: 'SLUG_TAKEN' },
    });
    expect((await article(slug))?.title).toBe('Hello World');
  });
});

describe('article.update', () => {
  it('changes only the fields sent, renames with newSlug, and clears with null', async () => {
    const slug = uniqueSlug();
    await finalReceipt(api, key, await accept(api, key, 'article.create', articleData({ slug })));
    const newSlug = uniqueSlug();
    const receipt = await finalReceipt(
      api,
      key,
      await accept(api, key, 'article.update', {
        slug,
        newSlug,
        title: 'Renamed',
        cover: null,
        readMinutes: null,
      }),
    );
    expect(receipt).toMatchObject({
      status: 'succeeded',
      result: { type: 'article', slug: newSlug },
    });
    expect(await article(slug)).toBeNull();
    expect(await article(newSlug)).toMatchObject({
      title: 'Renamed',
      cover: null,
      excerpt: 'A short summary',
      body: ['First paragraph.', 'Second paragraph.'],
      readMinutes: 1,
      readMinutesComputed: true,
    });
  });

  it('fails with ARTICLE_NOT_FOUND for a missing slug and SLUG_TAKEN for a taken newSlug', async () => {
    const missing = await finalReceipt(
      api,
      key,
      await accept(api, key, 'article.update', { slug: uniqueSlug(), title: 'X' }),
    );
    expect(missing).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'ARTICLE_NOT_FOUND' },
    });
    const a = uniqueSlug();
    const b = uniqueSlug();
    await finalReceipt(
      api,
      key,
      await accept(api, key, 'article.create', articleData({ slug: a })),
    );
    await finalReceipt(
      api,
      key,
      await accept(api, key, 'article.create', articleData({ slug: b })),
    );
    const clash = await finalReceipt(
      api,
      key,
      await accept(api, key, 'article.update', { slug: a, newSlug: b }),
    );
    expect(clash).toMatchObject({ status: 'failed', error: { code: 'SLUG_TAKEN' } });
    expect(await article(a)).not.toBeNull();
  });
});

describe('article.delete and highlight.create', () => {
  it('deletes an article, and fails with ARTICLE_NOT_FOUND when there is none', async () => {
    const slug = uniqueSlug();
    await finalReceipt(api, key, await accept(api, key, 'article.create', articleData({ slug })));
    const receipt = await finalReceipt(
      api,
      key,
      await accept(api, key, 'article.delete', { slug }),
    );
    expect(receipt).toMatchObject({
      status: 'succeeded',
      result: { type: 'article', slug, deleted: true },
    });
    expect(await article(slug)).toBeNull();
    const again = await finalReceipt(api, key, await accept(api, key, 'article.delete', { slug }));
    expect(again).toMatchObject({ status: 'failed', error: { code: 'ARTICLE_NOT_FOUND' } });
  });

  it('creates a highlight, linked to one of the account articles when asked', async () => {
    const slug = uniqueSlug();
    await finalReceipt(api, key, await accept(api, key, 'article.create', articleData({ slug })));
    const data = {
      title: 'Goal',
      videoUrl: 'https://video.example.com/g.mp4',
      thumbnailUrl: 'https://img.example.com/g.jpg',
      durationSeconds: 42,
      description: 'A goal',
      tags: ['sport', 'goal'],
      articleSlug: slug,
    };
    const receipt = await finalReceipt(api, key, await accept(api, key, 'highlight.create', data));
    expect(receipt).toMatchObject({ status: 'succeeded', result: { type: 'highlight' } });
    const highlight = await api.deps.db.prisma.highlight.findUnique({
      where: { id: (receipt.result as { id: string }).id },
    });
    const { articleSlug: _slug, ...fields } = data;
    expect(highlight).toMatchObject({
      ...fields,
      accountId: account.id,
      articleId: (await article(slug))?.id,
    });
    const orphan = await finalReceipt(
      api,
      key,
      await accept(api, key, 'highlight.create', { ...data, articleSlug: uniqueSlug() }),
    );
    expect(orphan).toMatchObject({ status: 'failed', error: { code: 'ARTICLE_NOT_FOUND' } });
  });
});

describe('tenant isolation', () => {
  it("lets account B neither update, delete, link to nor read the receipts of account A's content", async () => {
    const other: RegisteredAccount = await registerAccount(api);
    const { key: otherKey } = await createKey(api, other);
    const slug = uniqueSlug();
    const created = await accept(api, key, 'article.create', articleData({ slug }));
    await finalReceipt(api, key, created);
    for (const [event, data] of [
      ['article.update', { slug, title: 'Hijacked' }],
      ['article.delete', { slug }],
      ['highlight.create', { title: 'H', videoUrl: 'https://v.example/1', articleSlug: slug }],
    ] as const) {
      const receipt = await finalReceipt(api, otherKey, await accept(api, otherKey, event, data));
      expect(receipt).toMatchObject({ status: 'failed', error: { code: 'ARTICLE_NOT_FOUND' } });
    }
    expect((await article(slug))?.title).toBe('Hello World');
    expectProblem(await getReceipt(api, otherKey, created), 404, 'NOT_FOUND');
    const asOther = await api.app.inject({
      method: 'GET',
      url: `/api/webhooks/content/${created}`,
      headers: bearer(other.token),
    });
    expectProblem(asOther, 404, 'NOT_FOUND');
    const list = await api.app.inject({
      method: 'GET',
      url: '/api/webhooks/content?limit=100',
      headers: bearer(other.token),
    });
    expect(list.json().items.map((r: { id: string }) => r.id)).not.toContain(created);
  });
});

describe('receipts', () => {
  it('are readable with the bearer token or a key with content:read or content:create, not other scopes', async () => {
    const id = await accept(api, key, 'article.delete', { slug: uniqueSlug() });
    const { key: reader } = await createKey(api, account, { name: 'r', scopes: ['content:read'] });
    const { key: narrow } = await createKey(api, account, {
      name: 'n',
      scopes: ['article:create'],
    });
    expect((await getReceipt(api, reader, id)).statusCode).toBe(200);
    expect(
      (
        await api.app.inject({
          method: 'GET',
          url: `/api/webhooks/content/${id}`,
          headers: bearer(account.token),
        })
      ).statusCode,
    ).toBe(200);
    expectProblem(await getReceipt(api, narrow, id), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(
      await getReceipt(api, reader, '01a20000-0000-7000-8000-000000000000'),
      404,
      'NOT_FOUND',
    );
    expectProblem(await getReceipt(api, reader, 'nope'), 400, 'VALIDATION_FAILED');
  });

  it('list the account events newest first, filtered and paginated by cursor', async () => {
    const lister = await registerAccount(api);
    const { key: listerKey } = await createKey(api, lister);
    const ids = [];
    for (let i = 0; i < 5; i += 1)
      ids.push(await accept(api, listerKey, 'article.delete', { slug: uniqueSlug() }));
    const rejected = expectProblem(
      await sendEvent(api, listerKey, 'article.delete', {}),
      400,
      'VALIDATION_FAILED',
    ).eventId;
    for (const id of ids) await finalReceipt(api, listerKey, id);

    const page = async (query: string) =>
      (
        await api.app.inject({
          method: 'GET',
          url: `/api/webhooks/content?${query}`,
          headers: bearer(lister.token),
        })
      ).json();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const body = await page(`limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...body.items.map((r: { id: string }) => r.id));
      cursor = body.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual([rejected, ...[...ids].reverse()]);
    expect((await page('status=rejected')).items.map((r: { id: string }) => r.id)).toEqual([
      rejected,
    ]);
    expect((await page('status=failed&event=article.delete')).items).toHaveLength(5);
    expectProblem(
      await api.app.inject({
        method: 'GET',
        url: '/api/webhooks/content?status=bogus',
        headers: bearer(lister.token),
      }),
      400,
      'VALIDATION_FAILED',
    );
    expectProblem(
      await api.app.inject({
        method: 'GET',
        url: '/api/webhooks/content?cursor=garbage',
        headers: bearer(lister.token),
      }),
      400,
      'VALIDATION_FAILED',
    );
  });
});

describe('Prefer: wait', () => {
  it('answers 200 with the final receipt when the event succeeds in time', async () => {
    const slug = uniqueSlug();
    const response = await sendEvent(api, key, 'article.create', articleData({ slug }), {
      prefer: 'wait=10',
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['preference-applied']).toBe('wait=10');
    expect(response.headers.location).toMatch(/^\/api\/webhooks\/content\//);
    expect(response.json()).toMatchObject({ status: 'succeeded', result: { slug } });
  });

  it("answers with the failure's own status when the event fails in time", async () => {
    const response = await sendEvent(
      api,
      key,
      'article.update',
      { slug: uniqueSlug(), title: 'X' },
      { prefer: 'wait=10' },
    );
    const problem = expectProblem(response, 404, 'ARTICLE_NOT_FOUND');
    expect(problem.instance).toBe(`/api/webhooks/content/${problem.eventId}`);
  });

  it('answers the usual 202 when the outcome does not come in time', async () => {
    const paused = await startTestApi(); // its own queue prefix: no worker consumes it
    try {
      const other = await registerAccount(paused);
      const { key: pausedKey } = await createKey(paused, other);
      const started = Date.now();
      const response = await sendEvent(
        paused,
        pausedKey,
        'article.delete',
        { slug: 'x' },
        { prefer: 'wait=1' },
      );
      expect(response.statusCode).toBe(202);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    } finally {
      await paused.close();
    }
  });
});
