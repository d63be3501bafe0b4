// POST /api/webhooks/content/batch: each event goes through the single publish's flow on
// its own, answered in order; accepted ones are applied by real worker processes in the
// order sent; keyed ones are recorded once across retries of the whole call.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { articleData, finalReceipt, sendEvent, uniqueSlug } from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let api: TestApi;
let worker: WorkerProcess;
let account: RegisteredAccount;
let key: string;
beforeAll(async () => {
  api = await startTestApi({ CONTENT_BATCH_MAX_EVENTS: '50', CONTENT_BATCH_LIMIT_BYTES: '65536' });
  worker = await startWorkerProcess(api.tag);
  account = await registerAccount(api);
  ({ key } = await createKey(api, account));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

interface ItemResult {
  id?: string;
  event?: string;
  status?: string;
  replayed?: true;
  error?: { status: number; code: string; message: string; errors?: unknown[] };
}

const publishBatch = (
  body: unknown,
  options: { key?: string; headers?: Record<string, string>; payload?: string } = {},
) =>
  api.app.inject({
    method: 'POST',
    url: '/api/webhooks/content/batch',
    headers: {
      'x-api-key': options.key ?? key,
      'content-type': 'application/json',
      ...options.headers,
    },
    payload: options.payload ?? JSON.stringify(body),
  });

async function resultsOf(response: Awaited<ReturnType<typeof publishBatch>>) {
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ results: ItemResult[] }>().results;
}

const rowsOf = (ids: string[]) =>
  api.deps.db.prisma.webhookLog.findMany({ where: { id: { in: ids } } });

describe('a batch of events', () => {
  it('answers each event in order: accepted ones with their receipt, bad ones with the error a single publish gets', async () => {
    const slug = uniqueSlug('batch');
    const results = await resultsOf(
      await publishBatch({
        events: [
          { event: 'article.create', data: articleData({ slug }) },
          { event: 'article.create', data: { title: '' } },
          { event: 'article.explode', data: {} },
          { event: 'article.update', data: { slug, title: 'Second' } },
          'not an event',
          { event: 'article.update', data: { slug, title: 'Bad key' }, idempotencyKey: '\u0001' },
        ],
      }),
    );
    expect(results).toHaveLength(6);
    expect(results[0]).toMatchObject({ event: 'article.create', status: 'queued' });
    expect(results[1]?.error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(results[1]?.error?.errors).toContainEqual(
      expect.objectContaining({ path: 'data.title' }),
    );
    expect(results[2]?.error).toMatchObject({ status: 400, code: 'UNKNOWN_EVENT' });
    expect(results[3]).toMatchObject({ event: 'article.update', status: 'queued' });
    expect(results[4]?.error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(results[5]?.error?.errors).toEqual([
      { path: 'idempotencyKey', message: 'must be 1-255 printable ASCII characters' },
    ]);

    // Every event has its row: refused ones as rejected, with what was sent and why.
    const ids = results.map((result) => result.id ?? '');
    expect(ids.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
    const rows = new Map((await rowsOf(ids)).map((row) => [row.id, row]));
    const rejected = ids.map((id) => rows.get(id)?.status === 'rejected');
    expect(rejected).toEqual([false, true, true, false, true, true]);
    expect(rows.get(ids[2] ?? '')?.event).toBe('article.explode');
    expect(rows.get(ids[1] ?? '')?.error).toMatchObject({ code: 'VALIDATION_FAILED' });

    // Applied in the order sent: the update found the article the create made.
    expect((await finalReceipt(api, key, ids[0] ?? '')).status).toBe('succeeded');
    expect((await finalReceipt(api, key, ids[3] ?? '')).status).toBe('succeeded');
    const article = await api.deps.db.prisma.article.findUnique({ where: { slug } });
    expect(article?.title).toBe('Second');
  });

  it('applies a run of updates to one article in the order sent', async () => {
    const slug = uniqueSlug('batch-run');
    const events = [
      { event: 'article.create', data: articleData({ slug, title: 't0' }) },
      ...Array.from({ length: 40 }, (_, i) => ({
        event: 'article.update',
        data: { slug, title: `t${i + 1}` },
      })),
    ];
    const results = await resultsOf(await publishBatch({ events }));
    expect(results.every((result) => result.status === 'queued')).toBe(true);
    const last = await finalReceipt(api, key, results.at(-1)?.id ?? '');
    expect(last.status).toBe('succeeded');
    const article = await api.deps.db.prisma.article.findUnique({ where: { slug } });
    expect(article?.title).toBe('t40');
    expect(article?.version).toBe(41);
  });

  it('refuses, per event, the events the key has no scope for', async () => {
    const { key: createOnly } = await createKey(api, account, {
      name: 'create only',
      scopes: ['article:create'],
    });
    const slug = uniqueSlug('scoped');
    const results = await resultsOf(
      await publishBatch(
        {
          events: [
            { event: 'article.create', data: articleData({ slug }) },
            { event: 'article.delete', data: { slug } },
          ],
        },
        { key: createOnly },
      ),
    );
    expect(results[0]?.status).toBe('queued');
    expect(results[1]?.error).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    const [row] = await rowsOf([results[1]?.id ?? '']);
    expect(row?.status).toBe('rejected');
  });
});

describe('idempotency keys in a batch', () => {
  it('records each keyed event once across retries of the whole batch, answering with the same ids', async () => {
    const slug = uniqueSlug('retry');
    const events = [
      { event: 'article.create', data: articleData({ slug }), idempotencyKey: `${slug}-1` },
      { event: 'article.update', data: { slug, title: 'Two' }, idempotencyKey: `${slug}-2` },
    ];
    const first = await resultsOf(await publishBatch({ events }));
    const again = await resultsOf(await publishBatch({ events }));
    expect(again.map((result) => result.id)).toEqual(first.map((result) => result.id));
    expect(again.every((result) => result.replayed === true)).toBe(true);
    expect(first.some((result) => result.replayed)).toBe(false);
    expect(await api.deps.db.prisma.webhookLog.count({ where: { orderKeys: { has: slug } } })).toBe(
      2,
    );

    // A retry with one more event records only the new one.
    const longer = [
      ...events,
      { event: 'article.update', data: { slug, title: 'Three' }, idempotencyKey: `${slug}-3` },
    ];
    const third = await resultsOf(await publishBatch({ events: longer }));
    expect(third.slice(0, 2).map((result) => result.id)).toEqual(first.map((result) => result.id));
    expect(third[2]?.replayed).toBeUndefined();
    expect(await api.deps.db.prisma.webhookLog.count({ where: { orderKeys: { has: slug } } })).toBe(
      3,
    );
  });

  it('answers a key repeated within a batch like a second call: the same event again, or 422', async () => {
    const slug = uniqueSlug('dup');
    const create = { event: 'article.create', data: articleData({ slug }), idempotencyKey: slug };
    const results = await resultsOf(
      await publishBatch({
        events: [
          create,
          create,
          {
            event: 'article.create',
            data: articleData({ slug, title: 'Other' }),
            idempotencyKey: slug,
          },
        ],
      }),
    );
    expect(results[1]).toEqual({ ...results[0], replayed: true });
    expect(results[2]?.error).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_MISMATCH' });
    expect(
      await api.deps.db.prisma.webhookLog.count({
        where: { orderKeys: { has: slug }, status: { not: 'rejected' } },
      }),
    ).toBe(1);
  });

  it("keys a signed call's unkeyed events by its webhook-id: the signed call sent again is the same events", async () => {
    const created = await createKey(api, account, { name: 'signer', scopes: ['content:create'] });
    const slug = uniqueSlug('signed');
    const payload = JSON.stringify({
      events: [
        { event: 'article.create', data: articleData({ slug }) },
        { event: 'article.update', data: { slug, title: 'Signed' } },
      ],
    });
    const id = `msg_${slug}`;
    const at = new Date();
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(created.signingSecret).sign(id, at, payload),
    };
    const first = await resultsOf(await publishBatch(null, { key: created.key, headers, payload }));
    const again = await resultsOf(await publishBatch(null, { key: created.key, headers, payload }));
    expect(again.map((result) => result.id)).toEqual(first.map((result) => result.id));
    expect(first.every((result) => result.status === 'queued')).toBe(true);

    // A forged signature refuses the call as a whole, recorded as one rejected event.
    const forged = await publishBatch(null, {
      key: created.key,
      headers: { ...headers, 'webhook-signature': 'v1,AAAA' },
      payload,
    });
    expectProblem(forged, 401, 'SIGNATURE_INVALID');
  });

  it('refuses an unkeyed event whose key from the webhook-id would be too long, naming the header', async () => {
    const created = await createKey(api, account, { name: 'long-id', scopes: ['content:create'] });
    const slug = uniqueSlug('long-id');
    const payload = JSON.stringify({
      events: [
        { event: 'article.create', data: articleData({ slug }), idempotencyKey: slug },
        { event: 'article.create', data: articleData() },
      ],
    });
    // 254 characters: `<webhook-id>:0` would be 256.
    const id = `msg_${'x'.repeat(250)}`;
    const at = new Date();
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(created.signingSecret).sign(id, at, payload),
    };
    const response = await publishBatch(null, { key: created.key, headers, payload });
    const [keyed, unkeyed] = await resultsOf(response);
    expect(keyed).toMatchObject({ event: 'article.create', status: 'queued' });
    expect(unkeyed?.error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(unkeyed?.error?.errors).toEqual([
      expect.objectContaining({ path: 'headers.webhook-id' }),
    ]);
  });
});

describe('a call that is not a batch', () => {
  it('is refused as a whole with 400, and recorded as one rejected event', async () => {
    const tooMany = {
      events: Array.from({ length: 51 }, () => ({ event: 'article.delete', data: { slug: 'x' } })),
    };
    for (const body of [{}, { events: [] }, { events: 'x' }, { events: [], extra: 1 }, tooMany]) {
      const response = await publishBatch(body);
      expectProblem(response, 400, 'VALIDATION_FAILED');
      const { eventId } = response.json<{ eventId: string }>();
      const [row] = await rowsOf([eventId]);
      expect(row?.status).toBe('rejected');
    }
    const withHeader = await publishBatch(
      { events: [{ event: 'article.delete', data: { slug: 'x' } }] },
      { headers: { 'idempotency-key': 'k' } },
    );
    expectProblem(withHeader, 400, 'VALIDATION_FAILED');
  });

  it('is refused with 413 past CONTENT_BATCH_LIMIT_BYTES, and 401 without a key', async () => {
    const big = {
      events: [{ event: 'article.create', data: articleData({ title: 'x'.repeat(70_000) }) }],
    };
    expectProblem(await publishBatch(big), 413, 'PAYLOAD_TOO_LARGE');
    expectProblem(await publishBatch({ events: [] }, { key: 'sk-nope' }), 401, 'UNAUTHENTICATED');
  });
});

describe("the account's rate limit", () => {
  let limited: TestApi;
  afterAll(() => limited?.close());

  it('counts events, not calls: those past the limit are answered RATE_LIMITED and not recorded', async () => {
    limited = await startTestApi({ RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE: '5' });
    const owner = await registerAccount(limited);
    const { key: ownKey } = await createKey(limited, owner);
    const events = Array.from({ length: 4 }, () => ({
      event: 'article.create',
      data: articleData({ slug: uniqueSlug('limited') }),
    }));
    // A single publish takes one of the five.
    expect((await sendEvent(limited, ownKey, 'article.delete', { slug: 'x' })).statusCode).toBe(
      202,
    );
    const response = await limited.app.inject({
      method: 'POST',
      url: '/api/webhooks/content/batch',
      headers: { 'x-api-key': ownKey },
      payload: { events: [...events, ...events.slice(0, 2)] },
    });
    expect(response.statusCode).toBe(200);
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    expect(response.headers['ratelimit-remaining']).toBe('0');
    const { results } = response.json<{ results: ItemResult[] }>();
    expect(results.map((result) => result.status ?? result.error?.code)).toEqual([
      'queued',
      'queued',
      'queued',
      'queued',
      'RATE_LIMITED',
      'RATE_LIMITED',
    ]);
    expect(results[4]?.error).toMatchObject({ status: 429 });
    expect(results[4]?.id).toBeUndefined();
    expect(await limited.deps.db.prisma.webhookLog.count({ where: { accountId: owner.id } })).toBe(
      5,
    );

    // Nothing left: the next call is refused as a whole, before its body is read.
    const refused = await limited.app.inject({
      method: 'POST',
      url: '/api/webhooks/content/batch',
      headers: { 'x-api-key': ownKey },
      payload: { events: events.slice(0, 1) },
    });
    expectProblem(refused, 429, 'RATE_LIMITED');
    expectProblem(
      await sendEvent(limited, ownKey, 'article.delete', { slug: 'x' }),
      429,
      'RATE_LIMITED',
    );
  });
});
