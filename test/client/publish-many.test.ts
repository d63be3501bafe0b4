// The client's publishMany against the real service (API and worker processes): events in
// batches, applied in the order given; refused events answered in their place; only the
// rate-limited events sent again; a batch whose answer was lost (a proxy, a SIGKILLed API)
// sent again without a second event.
import { IngestClient, IngestError, type BatchEvent, type PublishManyResult } from '@ingest/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../support/test-database.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import {
  clientLosingFirstAnswer,
  newPublisher,
  startService,
  type RunningService,
} from './support/service.js';

// Per account: each test has an account of its own, and only one goes past it.
const RATE_LIMIT = 220;

let service: RunningService;
let db: pg.Pool;
beforeAll(async () => {
  service = await startService({ RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE: String(RATE_LIMIT) });
  db = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await db?.end();
});

const slug = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}`;

const creates = (count: number, name: string): BatchEvent[] =>
  Array.from({ length: count }, (_, n) => ({
    event: 'article.create',
    data: { title: `${name} ${n}`, slug: slug(`${name}-${n}`), body: [`Event ${n}.`] },
  }));

async function eventsOfAccount(accountId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_logs WHERE account_id = $1`,
    [accountId],
  );
  return rows[0]!.n;
}

/** The event each idempotency key of the account names. */
async function eventsByKey(accountId: string): Promise<Map<string, string>> {
  const { rows } = await db.query<{ key: string; event_id: string }>(
    `SELECT key, event_id::text FROM idempotency_keys WHERE account_id = $1`,
    [accountId],
  );
  return new Map(rows.map((row) => [row.key, row.event_id]));
}

const batchCalls = (proxy: FaultProxy) =>
  proxy.seen.filter((request) => request.path === '/api/webhooks/content/batch');

/** The idempotency keys a batch call carried, in order. */
const keysSent = (body: string) =>
  (JSON.parse(body) as { events: Array<{ idempotencyKey: string }> }).events.map(
    (event) => event.idempotencyKey,
  );

const accepted = (results: PublishManyResult[]) =>
  results.map((result) => {
    if (!result.ok) throw result.error;
    return result;
  });

async function withProxy<T>(
  answers: Parameters<typeof startFaultProxy>[1],
  run: (proxy: FaultProxy) => Promise<T>,
): Promise<T> {
  const proxy = await startFaultProxy(service.url, answers);
  try {
    return await run(proxy);
  } finally {
    await proxy.close();
  }
}

describe('publishMany', () => {
  it('publishes in batches, one result per event in order, applied in the order given', async () => {
    const { key, account, publisher } = await newPublisher(service);
    const article = slug('many');
    const events: BatchEvent[] = [
      { event: 'article.create', data: { title: 't0', slug: article, body: ['First.'] } },
      ...Array.from({ length: 149 }, (_, n) => ({
        event: 'article.update' as const,
        data: { slug: article, title: `t${n + 1}` },
      })),
    ];
    const results = await withProxy([], async (proxy) => {
      const client = new IngestClient({ baseUrl: proxy.url, apiKey: key.key });
      const answered = await client.publishMany(events, { batchSize: 40 });
      // 40 + 40 + 40 + 30, each call with the events in the order given.
      const calls = batchCalls(proxy).map((call) => keysSent(call.body));
      expect(calls.map((keys) => keys.length)).toEqual([40, 40, 40, 30]);
      expect(calls.flat()).toEqual(answered.map((result) => result.idempotencyKey));
      return answered;
    });

    const ok = accepted(results);
    expect(ok.map((result) => result.receipt.event)).toEqual(events.map((event) => event.event));
    expect(new Set(ok.map((result) => result.receipt.id)).size).toBe(events.length);
    expect(ok.every((result) => !result.replayed && result.attempts === 1)).toBe(true);
    expect(new Set(ok.map((result) => result.idempotencyKey)).size).toBe(events.length);
    const byKey = await eventsByKey(account.id);
    for (const result of ok) expect(byKey.get(result.idempotencyKey)).toBe(result.receipt.id);

    const last = await publisher.waitForOutcome(ok.at(-1)!.receipt.id, { timeoutMs: 30_000 });
    expect(last.status).toBe('succeeded');
    const { rows } = await db.query<{ title: string; version: number }>(
      `SELECT title, version FROM articles WHERE slug = $1`,
      [article],
    );
    expect(rows[0]).toEqual({ title: 't149', version: 150 });
  }, 60_000);

  it('keeps each call within the byte budget, and an event with its own key keeps it', async () => {
    const { key } = await newPublisher(service);
    const events = creates(12, 'sized').map((event, n) => ({
      ...event,
      data: { ...event.data, body: ['x'.repeat(900)] },
      ...(n === 3 ? { idempotencyKey: `mine-${slug('key')}` } : {}),
    })) as BatchEvent[];
    await withProxy([], async (proxy) => {
      const client = new IngestClient({ baseUrl: proxy.url, apiKey: key.key });
      const results = await client.publishMany(events, { maxBatchBytes: 4_000 });
      expect(accepted(results)).toHaveLength(12);
      expect(results[3]?.idempotencyKey).toBe(events[3]?.idempotencyKey);
      const calls = batchCalls(proxy);
      expect(calls.length).toBeGreaterThanOrEqual(3);
      for (const call of calls) expect(Buffer.byteLength(call.body)).toBeLessThanOrEqual(4_000);
      expect(calls.flatMap((call) => keysSent(call.body))).toHaveLength(12);
    });
  });

  it('returns refused events in their place, as a single publish would fail, sent once', async () => {
    const { owner } = await newPublisher(service);
    const createOnly = await owner.apiKeys.create({
      name: 'create only',
      scopes: ['article:create'],
    });
    const taken = `taken-${slug('key')}`;
    const events = [
      ...creates(1, 'fine'),
      { event: 'article.create', data: { title: '', body: [] } },
      { event: 'article.explode', data: {} },
      { event: 'article.delete', data: { slug: 'anything' } },
      { event: 'article.create', data: { title: 'First', body: ['x'] }, idempotencyKey: taken },
      { event: 'article.create', data: { title: 'Other', body: ['x'] }, idempotencyKey: taken },
      ...creates(1, 'also-fine'),
    ] as BatchEvent[];
    const results = await withProxy([], async (proxy) => {
      const client = new IngestClient({ baseUrl: proxy.url, apiKey: createOnly.key });
      const answered = await client.publishMany(events);
      expect(batchCalls(proxy)).toHaveLength(1);
      return answered;
    });
    expect(results.map((result) => (result.ok ? 'queued' : result.error.code))).toEqual([
      'queued',
      'VALIDATION_FAILED',
      'UNKNOWN_EVENT',
      'INSUFFICIENT_SCOPE',
      'queued',
      'IDEMPOTENCY_KEY_MISMATCH',
      'queued',
    ]);
    const refused = results.flatMap((result) => (result.ok ? [] : [result]));
    expect(refused.map((result) => result.error.status)).toEqual([400, 400, 403, 422]);
    for (const result of refused) {
      expect(result.error).toBeInstanceOf(IngestError);
      expect(result.error.requestId).toMatch(/.+/);
      expect(result.attempts).toBe(1);
      // Recorded as a rejected event, as a single publish's refusal is.
      expect(result.id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(refused[0]?.error.errors.map((field) => field.path)).toContain('data.title');
  });

  it('sends again only the events the rate limit left out, after the wait it asked for', async () => {
    const { key, account } = await newPublisher(service);
    const events = creates(250, 'limited');
    const retries: Array<{ delayMs: number; reason: string }> = [];
    await withProxy([], async (proxy) => {
      const client = new IngestClient({
        baseUrl: proxy.url,
        apiKey: key.key,
        retry: { maxDelayMs: 90_000 },
      });
      const results = await client.publishMany(events, {
        batchSize: 100,
        onRetry: (retry) => retries.push(retry),
      });
      const ok = accepted(results);
      // 100, 100, then 20 of 50 within the limit; the other 30 once the minute is over.
      expect(ok.map((result) => result.attempts)).toEqual([
        ...Array<number>(RATE_LIMIT).fill(1),
        ...Array<number>(250 - RATE_LIMIT).fill(2),
      ]);
      const calls = batchCalls(proxy).map((call) => keysSent(call.body));
      expect(calls.map((keys) => keys.length)).toEqual([100, 100, 50, 30]);
      expect(calls[3]).toEqual(ok.slice(RATE_LIMIT).map((result) => result.idempotencyKey));
      const [third, fourth] = batchCalls(proxy).slice(2);
      expect(retries).toHaveLength(1);
      expect(fourth!.at - third!.at).toBeGreaterThanOrEqual(retries[0]!.delayMs - 50);
    });
    expect(await eventsOfAccount(account.id)).toBe(250);
  }, 150_000);

  it('sends a batch again when its answer was lost, and gets the same events back', async () => {
    const { key, account } = await newPublisher(service);
    const events = creates(30, 'lost');
    const lost = [
      // The service recorded the batch; its answer never came back.
      { status: 0, afterPassingOn: true },
      // The service recorded it again (as a replay); a proxy in the way answered 502.
      {
        status: 502,
        headers: { 'content-type': 'text/html' },
        body: '<h1>Bad Gateway</h1>',
        afterPassingOn: true,
      },
    ];
    const results = await withProxy(lost, async (proxy) => {
      const client = new IngestClient({
        baseUrl: proxy.url,
        apiKey: key.key,
        retry: { baseDelayMs: 50 },
      });
      const answered = await client.publishMany(events);
      const calls = batchCalls(proxy);
      expect(calls).toHaveLength(3);
      expect(new Set(calls.map((call) => call.body)).size).toBe(1);
      return answered;
    });
    const ok = accepted(results);
    expect(ok.every((result) => result.replayed && result.attempts === 3)).toBe(true);
    expect(await eventsOfAccount(account.id)).toBe(30);
    const byKey = await eventsByKey(account.id);
    expect(ok.map((result) => byKey.get(result.idempotencyKey))).toEqual(
      ok.map((result) => result.receipt.id),
    );
  });

  it('signs each batch with the signing secret, as a requireSignature key demands', async () => {
    const { key, account } = await newPublisher(service, { requireSignature: true });
    const unsigned = await new IngestClient({ baseUrl: service.url, apiKey: key.key }).publishMany(
      creates(2, 'unsigned'),
    );
    expect(unsigned.map((result) => !result.ok && result.error.code)).toEqual([
      'SIGNATURE_REQUIRED',
      'SIGNATURE_REQUIRED',
    ]);
    const signed = new IngestClient({
      baseUrl: service.url,
      apiKey: key.key,
      signingSecret: key.signingSecret,
    });
    expect(accepted(await signed.publishMany(creates(5, 'signed')))).toHaveLength(5);
    // The refused call is one rejected event; the signed one, five accepted.
    const { rows } = await db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM webhook_logs WHERE account_id = $1 GROUP BY status`,
      [account.id],
    );
    expect(rows.find((row) => row.status === 'rejected')?.n).toBe(1);
    expect(await eventsOfAccount(account.id)).toBe(6);
  });

  it('makes no second event of a batch whose answer was lost when the API was SIGKILLed', async () => {
    const { key, account } = await newPublisher(service);
    const { client, killed } = clientLosingFirstAnswer(service, key.key, 200);
    const results = accepted(await client.publishMany(creates(50, 'killed')));
    expect(killed()).toBe(true);
    expect(results.every((result) => result.replayed && result.attempts > 1)).toBe(true);
    expect(await eventsOfAccount(account.id)).toBe(50);
    await service.api().waitForLine(/Server listening/);
  }, 120_000);
});
