// POST /api/webhooks/content up to the queue: key, scope, validation, the WebhookLog
// record and the job. No worker runs here, so every event stays queued.
import { EVENT_NAMES } from '@ingest/events';
import { CONTENT_EVENTS_QUEUE } from '@ingest/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { articleData, sendEvent, uniqueSlug } from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
let account: RegisteredAccount;
let key: string;
beforeAll(async () => {
  api = await startTestApi({ CONTENT_BODY_LIMIT_BYTES: String(64 * 1024) });
  account = await registerAccount(api);
  ({ key } = await createKey(api, account));
});
afterAll(() => api.close());

const logRow = (id: string) => api.deps.db.prisma.webhookLog.findUnique({ where: { id } });

describe('accepting an event', () => {
  it('records it, queues a job carrying only ids, and answers 202 with its receipt location', async () => {
    const slug = uniqueSlug();
    const data = articleData({ slug });
    const response = await sendEvent(api, key, 'article.create', data, {
      'x-request-id': 'bot-req-1',
    });
    expect(response.statusCode).toBe(202);
    const body = response.json();
    expect(body).toEqual({
      id: expect.any(String),
      event: 'article.create',
      status: 'queued',
      receivedAt: expect.any(String),
    });
    expect(response.headers.location).toBe(`/api/webhooks/content/${body.id}`);

    const row = await logRow(body.id);
    expect(row).toMatchObject({
      accountId: account.id,
      event: 'article.create',
      status: 'queued',
      requestId: 'bot-req-1',
      attempts: 0,
      payload: data,
      orderKeys: [slug],
    });
    expect(row?.apiKeyId).not.toBeNull();

    const job = await api.deps.queues.all[0]!.getJob(body.id);
    expect(job?.name).toBe('article.create');
    expect(job?.data).toEqual({
      eventId: body.id,
      requestId: 'bot-req-1',
      accountId: account.id,
    });
    expect(job?.queueName).toBe(CONTENT_EVENTS_QUEUE);
    // Its place in the fair order between accounts.
    expect(job?.opts.priority).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(job?.data)).not.toContain(key);
  });

  it.each([
    ['article.update', { slug: 'some-article', title: 'New title' }],
    ['article.delete', { slug: 'some-article' }],
    [
      'highlight.create',
      { title: 'Goal!', videoUrl: 'https://video.example.com/1.mp4', tags: ['sport'] },
    ],
  ])('accepts a valid %s', async (event, data) => {
    expect((await sendEvent(api, key, event, data)).statusCode).toBe(202);
  });

  it('accepts the bounds of every limit', async () => {
    const data = {
      title: 't'.repeat(300),
      body: Array.from({ length: 500 }, () => 'p'),
      excerpt: 'e'.repeat(1000),
      category: 'c'.repeat(64),
      readMinutes: 600,
      slug: `${uniqueSlug()}-${'s'.repeat(100)}`.slice(0, 120),
    };
    expect((await sendEvent(api, key, 'article.create', data)).statusCode).toBe(202);
    const highlight = {
      title: 'h',
      videoUrl: 'http://v.example',
      durationSeconds: 86_400,
      tags: Array(20).fill('t'),
      description: 'd'.repeat(2000),
    };
    expect((await sendEvent(api, key, 'highlight.create', highlight)).statusCode).toBe(202);
  });

  it('counts lengths in code points, as JSON Schema does: 300 emoji are a title of 300', async () => {
    const title = '😀'.repeat(300); // 600 UTF-16 code units
    const slug = uniqueSlug();
    expect(
      (await sendEvent(api, key, 'article.create', articleData({ slug, title }))).statusCode,
    ).toBe(202);
    const refused = await sendEvent(
      api,
      key,
      'article.create',
      articleData({ title: `${title}😀` }),
    );
    expect(refused.json().errors).toEqual([{ path: 'data.title', message: expect.any(String) }]);
  });
});

describe('refusing an event', () => {
  it('refuses a missing, malformed, unknown or revoked key with 401, recording nothing', async () => {
    const before = await api.deps.db.prisma.webhookLog.count({ where: { accountId: account.id } });
    const { id: revokedId, key: revokedKey } = await createKey(api, account);
    await api.app.inject({
      method: 'DELETE',
      url: `/api/webhooks/api-keys/${revokedId}`,
      headers: bearer(account.token),
    });
    // One character off; a key that already ends in 0 must not be "changed" into itself.
    const mistyped = `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
    for (const headers of [
      {},
      { 'x-api-key': 'sk-nope' },
      { 'x-api-key': mistyped },
      { 'x-api-key': revokedKey },
    ]) {
      const response = await api.app.inject({
        method: 'POST',
        url: '/api/webhooks/content',
        headers,
        payload: { event: 'article.create', data: articleData() },
      });
      expectProblem(response, 401, 'UNAUTHENTICATED');
    }
    // A bearer token is not a publishing credential.
    const withToken = await api.app.inject({
      method: 'POST',
      url: '/api/webhooks/content',
      headers: bearer(account.token),
      payload: { event: 'article.create', data: articleData() },
    });
    expectProblem(withToken, 401, 'UNAUTHENTICATED');
    expect(await api.deps.db.prisma.webhookLog.count({ where: { accountId: account.id } })).toBe(
      before,
    );
  });

  it('refuses an event outside the key scopes with 403 INSUFFICIENT_SCOPE naming the scope, recording nothing', async () => {
    const { key: narrow } = await createKey(api, account, {
      name: 'narrow',
      scopes: ['article:create', 'content:read'],
    });
    expect(
      (await sendEvent(api, narrow, 'article.create', articleData({ slug: uniqueSlug() })))
        .statusCode,
    ).toBe(202);
    const refused = expectProblem(
      await sendEvent(api, narrow, 'article.delete', { slug: 'x' }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    expect(refused.detail).toContain('content:create or article:delete');
    const { key: readOnly } = await createKey(api, account, {
      name: 'reader',
      scopes: ['content:read'],
    });
    const before = await api.deps.db.prisma.webhookLog.count({ where: { accountId: account.id } });
    expectProblem(
      await sendEvent(api, readOnly, 'article.create', articleData()),
      403,
      'INSUFFICIENT_SCOPE',
    );
    expectProblem(await sendEvent(api, readOnly, 'no.such.event', {}), 403, 'INSUFFICIENT_SCOPE');
    expect(await api.deps.db.prisma.webhookLog.count({ where: { accountId: account.id } })).toBe(
      before,
    );
  });

  it('refuses an unknown event with 400 UNKNOWN_EVENT listing the supported ones, and records it as rejected', async () => {
    const response = await sendEvent(api, key, 'article.publish', { slug: 'x' });
    const problem = expectProblem(response, 400, 'UNKNOWN_EVENT');
    expect(problem.supportedEvents).toEqual(EVENT_NAMES);
    expect(problem.instance).toBe(`/api/webhooks/content/${problem.eventId}`);
    const row = await logRow(problem.eventId!);
    expect(row).toMatchObject({
      status: 'rejected',
      event: 'article.publish',
      error: { code: 'UNKNOWN_EVENT' },
    });
    expect(await api.deps.queues.all[0]!.getJob(problem.eventId!)).toBeUndefined();
  });

  it.each([
    ['a missing title', { ...articleData(), title: undefined }, ['data.title']],
    ['a blank title', articleData({ title: '   ' }), ['data.title']],
    ['a title of 301', articleData({ title: 't'.repeat(301) }), ['data.title']],
    ['an empty body', articleData({ body: [] }), ['data.body']],
    ['501 paragraphs', articleData({ body: Array(501).fill('p') }), ['data.body']],
    ['a paragraph that is not a string', articleData({ body: ['ok', 7] }), ['data.body.1']],
    [
      'a cover that is not http(s)',
      articleData({ cover: 'ftp://x.example/c.jpg' }),
      ['data.cover'],
    ],
    [
      'readMinutes of 0 and an excerpt of 1001',
      articleData({ readMinutes: 0, excerpt: 'e'.repeat(1001) }),
      ['data.readMinutes', 'data.excerpt'],
    ],
    ['readMinutes of 1.5', articleData({ readMinutes: 1.5 }), ['data.readMinutes']],
    ['readMinutes of 601', articleData({ readMinutes: 601 }), ['data.readMinutes']],
    ['readMinutes as a string', articleData({ readMinutes: '3' }), ['data.readMinutes']],
    ['a category of 65', articleData({ category: 'c'.repeat(65) }), ['data.category']],
    ['a malformed slug', articleData({ slug: 'Not A Slug' }), ['data.slug']],
    ['a NUL character', articleData({ title: 'a\u0000b' }), ['data.title']],
    ['an unpaired surrogate', articleData({ body: ['\ud800'] }), ['data.body.0']],
    ['an unknown field', articleData({ author: 'me' }), ['data.author']],
  ])(
    'refuses an article.create with %s: 400 VALIDATION_FAILED, one entry a field, recorded as rejected',
    async (_label, data, paths) => {
      const problem = expectProblem(
        await sendEvent(api, key, 'article.create', data),
        400,
        'VALIDATION_FAILED',
      );
      expect(problem.errors?.map((e) => e.path).sort()).toEqual([...paths].sort());
      const row = await logRow(problem.eventId!);
      expect(row).toMatchObject({
        status: 'rejected',
        event: 'article.create',
        error: { code: 'VALIDATION_FAILED', errors: problem.errors },
      });
      expect(row?.finishedAt).not.toBeNull();
      expect(await api.deps.queues.all[0]!.getJob(problem.eventId!)).toBeUndefined();
    },
  );

  it.each([
    ['article.update without changes', 'article.update', { slug: 'x' }, ['data']],
    ['article.update without slug', 'article.update', { title: 'T' }, ['data.slug']],
    ['article.delete with a bad slug', 'article.delete', { slug: '-x-' }, ['data.slug']],
    ['highlight.create without videoUrl', 'highlight.create', { title: 'H' }, ['data.videoUrl']],
    [
      'highlight.create with 21 tags',
      'highlight.create',
      { title: 'H', videoUrl: 'https://v.example/1', tags: Array(21).fill('t') },
      ['data.tags'],
    ],
    [
      'highlight.create with a duration of 86401',
      'highlight.create',
      { title: 'H', videoUrl: 'https://v.example/1', durationSeconds: 86_401 },
      ['data.durationSeconds'],
    ],
  ])('refuses %s', async (_label, event, data, paths) => {
    const problem = expectProblem(await sendEvent(api, key, event, data), 400, 'VALIDATION_FAILED');
    expect(problem.errors?.map((e) => e.path).sort()).toEqual(paths);
  });

  it('refuses a malformed envelope, recording what was sent', async () => {
    const send = (payload: unknown) =>
      api.app.inject({
        method: 'POST',
        url: '/api/webhooks/content',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
    const cases: Array<[unknown, string[]]> = [
      [{ data: {} }, ['event']],
      [{ event: 42, data: {} }, ['event']],
      [{ event: 'article.delete' }, ['data']],
      [{ event: 'article.delete', data: ['x'] }, ['data']],
      [{ event: 'article.delete', data: { slug: 'x' }, extra: 1 }, ['extra']],
      [['not', 'an', 'object'], ['']],
    ];
    for (const [payload, paths] of cases) {
      const problem = expectProblem(await send(payload), 400, 'VALIDATION_FAILED');
      expect(problem.errors?.map((e) => e.path)).toEqual(paths);
      expect((await logRow(problem.eventId!))?.payload).toEqual(payload);
    }
  });

  it('records a rejected body it cannot store as sent (NUL, deep nesting) in a storable form', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i += 1) deep = { d: deep };
    const problem = expectProblem(
      await sendEvent(api, key, 'article.create', { title: 'x\u0000y', deep }),
      400,
      'VALIDATION_FAILED',
    );
    const row = await logRow(problem.eventId!);
    expect(JSON.stringify(row?.payload)).toContain('x\uFFFDy');
    expect(JSON.stringify(row?.payload)).toContain('nested too deeply');
  });

  it('answers bodies over the limit with 413, non-JSON with 415 and malformed JSON with 400 INVALID_JSON', async () => {
    const big = articleData({ body: ['x'.repeat(70 * 1024)] });
    expectProblem(await sendEvent(api, key, 'article.create', big), 413, 'PAYLOAD_TOO_LARGE');
    const raw = (body: string, type: string) =>
      api.app.inject({
        method: 'POST',
        url: '/api/webhooks/content',
        headers: { 'x-api-key': key, 'content-type': type },
        body,
      });
    expectProblem(await raw('event=article.create', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectProblem(
      await raw('{"event": "article.create", ', 'application/json'),
      400,
      'INVALID_JSON',
    );
  });
});

describe('API key revocation', () => {
  it('takes effect within a second on another API instance', async () => {
    const other = await startTestApi();
    try {
      const { id, key: revocable } = await createKey(api, account);
      expect((await sendEvent(other, revocable, 'article.delete', { slug: 'x' })).statusCode).toBe(
        202,
      );
      await api.app.inject({
        method: 'DELETE',
        url: `/api/webhooks/api-keys/${id}`,
        headers: bearer(account.token),
      });
      expectProblem(
        await sendEvent(api, revocable, 'article.delete', { slug: 'x' }),
        401,
        'UNAUTHENTICATED',
      );
      await new Promise((resolve) => setTimeout(resolve, 1_050));
      expectProblem(
        await sendEvent(other, revocable, 'article.delete', { slug: 'x' }),
        401,
        'UNAUTHENTICATED',
      );
    } finally {
      await other.close();
    }
  });
});

describe('the receipt of an event older than the log keeps', () => {
  const uuidv7At = (ms: number) => {
    const hex = ms.toString(16).padStart(12, '0');
    return `${hex.slice(0, 8)}-${hex.slice(8)}-7abc-8def-0123456789ab`;
  };
  const receipt = (id: string) =>
    api.app.inject({
      method: 'GET',
      url: `/api/webhooks/content/${id}`,
      headers: { 'x-api-key': key },
    });

  it('is 410 EVENT_EXPIRED past EVENT_LOG_RETENTION_DAYS, and 404 for an unknown id within it', async () => {
    const day = 24 * 3_600_000;
    const expired = await receipt(uuidv7At(Date.now() - 31 * day));
    expectProblem(expired, 410, 'EVENT_EXPIRED');
    expect(expired.json().message).toMatch(/kept 30 days/);
    expectProblem(await receipt(uuidv7At(Date.now() - 29 * day)), 404, 'NOT_FOUND');
    // A uuid of another version says nothing about its age: 404.
    expectProblem(await receipt('00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
  });

  it("is answered the same for another account's event as for a missing one", async () => {
    const other = await registerAccount(api);
    const { key: otherKey } = await createKey(api, other);
    const accepted = await sendEvent(
      api,
      otherKey,
      'article.create',
      articleData({ slug: uniqueSlug() }),
    );
    expectProblem(await receipt(accepted.json().id), 404, 'NOT_FOUND');
  });
});
