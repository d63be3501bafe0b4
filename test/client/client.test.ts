// The client library (packages/client) against the real service: the API and a worker,
// each a process of their own. Exactly-once publishing across a killed API, retries that
// honour Retry-After, errors read as the spec's client rule says, signatures both ways.
import {
  IngestClient,
  IngestError,
  verifyWebhook,
  WebhookVerificationFailed,
} from '@ingest/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceivers, type Receivers } from '../support/receivers.js';
import { TEST_DATABASE_URL } from '../support/test-database.js';
import { startFaultProxy } from './fault-proxy.js';
import {
  clientLosingFirstAnswer,
  newPublisher,
  startService,
  type RunningService,
} from './support/service.js';

let service: RunningService;
let db: pg.Pool;
beforeAll(async () => {
  service = await startService();
  db = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await db?.end();
});

/** The events the account has, by Idempotency-Key `key`. */
async function eventsWithKey(accountId: string, key: string): Promise<string[]> {
  const { rows } = await db.query<{ event_id: string }>(
    `SELECT event_id::text FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
    [accountId, key],
  );
  return rows.map((row) => row.event_id);
}

async function eventsOfAccount(accountId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_logs WHERE account_id = $1`,
    [accountId],
  );
  return rows[0]!.n;
}

const slug = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}`;

describe('publish', () => {
  it('publishes, waits for the outcome, and lists receipts page by page', async () => {
    const { publisher } = await newPublisher(service);
    const first = await publisher.publish(
      'article.create',
      { title: 'Client publish', slug: slug('client'), body: ['One.'] },
      { wait: 10 },
    );
    expect(first.receipt.status).toBe('succeeded');
    expect(first.replayed).toBe(false);
    const second = await publisher.publish('article.create', { title: 'No wait', body: ['Two.'] });
    const outcome = await publisher.waitForOutcome(second.receipt.id, { timeoutMs: 10_000 });
    expect(outcome.status).toBe('succeeded');
    const listed = [];
    for await (const receipt of publisher.listReceipts({ limit: 1 })) listed.push(receipt.id);
    expect(listed.sort()).toEqual([first.receipt.id, second.receipt.id].sort());
  });

  it('makes one event of a publish whose answer was lost when the API was SIGKILLed', async () => {
    const { key, account } = await newPublisher(service);
    const { client, killed } = clientLosingFirstAnswer(service, key.key, 202);
    const published = await client.publish('article.create', {
      title: 'Survives a killed API',
      slug: slug('killed'),
      body: ['Once.'],
    });
    expect(killed()).toBe(true);
    expect(published.attempts).toBeGreaterThan(1);
    expect(published.replayed).toBe(true);
    expect(await eventsWithKey(account.id, published.idempotencyKey)).toEqual([
      published.receipt.id,
    ]);
    expect(await eventsOfAccount(account.id)).toBe(1);
    await service.api().waitForLine(/Server listening/);
  }, 120_000);

  it('waits as Retry-After says on 429 and 503, and sends the same key each time', async () => {
    const { key, account } = await newPublisher(service);
    const problem = (status: number, code: string) => ({
      status,
      headers: { 'content-type': 'application/problem+json', 'retry-after': '1' },
      body: JSON.stringify({ status, code, message: 'Not now' }),
    });
    const proxy = await startFaultProxy(service.url, [
      problem(429, 'RATE_LIMITED'),
      problem(503, 'UNAVAILABLE'),
    ]);
    try {
      const client = new IngestClient({ baseUrl: proxy.url, apiKey: key.key });
      const published = await client.publish('article.create', {
        title: 'After two refusals',
        body: ['Third time.'],
      });
      expect(published.attempts).toBe(3);
      expect(proxy.seen).toHaveLength(3);
      const keys = proxy.seen.map((request) => request.headers['idempotency-key']);
      expect(new Set(keys)).toEqual(new Set([published.idempotencyKey]));
      const [a, b, c] = proxy.seen.map((request) => request.at);
      expect(b! - a!).toBeGreaterThanOrEqual(1_000);
      expect(c! - b!).toBeGreaterThanOrEqual(1_000);
      expect(await eventsOfAccount(account.id)).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('does not retry a refusal the next send would get too, and reads its problem', async () => {
    const { key } = await newPublisher(service);
    const proxy = await startFaultProxy(service.url, []);
    try {
      const client = new IngestClient({ baseUrl: proxy.url, apiKey: key.key });
      const refused = await client
        .publish('article.create', { title: '', body: [] })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(IngestError);
      const error = refused as IngestError;
      expect(error.status).toBe(400);
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.message).not.toBe('');
      expect(error.requestId).toMatch(/.+/);
      expect(error.errors.map((field) => field.path)).toContain('data.title');
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('sends a publish again after a 5xx, and a recorded one comes back as the same event', async () => {
    const { key, account } = await newPublisher(service);
    // The service recorded the event, and a proxy answered 502 in its place.
    const proxy = await startFaultProxy(service.url, [
      { status: 502, body: 'Bad Gateway', afterPassingOn: true },
    ]);
    try {
      const client = new IngestClient({
        baseUrl: proxy.url,
        apiKey: key.key,
        retry: { baseDelayMs: 10 },
      });
      const published = await client.publish('article.create', {
        title: 'Behind a failing proxy',
        body: ['Once.'],
      });
      expect(published.attempts).toBe(2);
      expect(published.replayed).toBe(true);
      const keys = proxy.seen.map((request) => request.headers['idempotency-key']);
      expect(keys).toEqual([published.idempotencyKey, published.idempotencyKey]);
      expect(await eventsWithKey(account.id, published.idempotencyKey)).toEqual([
        published.receipt.id,
      ]);
      expect(await eventsOfAccount(account.id)).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it("turns a proxy's HTML 502 into an IngestError with the generic message, once out of sends", async () => {
    const { key, account } = await newPublisher(service);
    const proxy = await startFaultProxy(
      service.url,
      [{ status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>Bad Gateway</h1>' }],
      { repeatLast: true },
    );
    try {
      const client = new IngestClient({
        baseUrl: proxy.url,
        apiKey: key.key,
        retry: { attempts: 3, baseDelayMs: 10 },
      });
      const failed = await client
        .publish('article.create', { title: 'Behind a proxy', body: ['x'] })
        .catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(IngestError);
      expect(failed).toMatchObject({
        status: 502,
        code: 'HTTP_ERROR',
        message: 'The service answered 502 without a readable error',
        attempts: 3,
      });
      expect(proxy.seen).toHaveLength(3);
      expect(await eventsOfAccount(account.id)).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('gives up after the bound with a network error when nothing listens', async () => {
    const client = new IngestClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'sk-unused',
      retry: { attempts: 3, baseDelayMs: 10 },
    });
    const failed = await client
      .publish('article.create', { title: 'Nowhere', body: ['x'] })
      .catch((error: unknown) => error);
    expect(failed).toMatchObject({ status: 0, code: 'NETWORK_ERROR', attempts: 3 });
  });
});

describe('signatures', () => {
  it('signs publishes with the signing secret, which a requireSignature key demands', async () => {
    const { key, publisher } = await newPublisher(service, { requireSignature: true });
    const unsigned = await publisher
      .publish('article.create', { title: 'Unsigned', body: ['x'] })
      .catch((error: unknown) => error);
    expect(unsigned).toMatchObject({ code: 'SIGNATURE_REQUIRED' });
    const wrong = await publisher
      .with({ apiKey: key.key, signingSecret: `whsec_${Buffer.alloc(24, 7).toString('base64')}` })
      .publish('article.create', { title: 'Wrongly signed', body: ['x'] })
      .catch((error: unknown) => error);
    expect(wrong).toMatchObject({ code: 'SIGNATURE_INVALID' });
    const signed = await publisher
      .with({ apiKey: key.key, signingSecret: key.signingSecret })
      .publish('article.create', { title: 'Signed', body: ['x'] }, { wait: 10 });
    expect(signed.receipt.status).toBe('succeeded');
  });

  it('verifies the webhooks the service sends, and refuses a changed body', async () => {
    const receivers: Receivers = await startReceivers();
    try {
      receivers.script('/hook', [{ status: 204 }]);
      const { owner, publisher } = await newPublisher(service);
      const endpoint = await owner.endpoints.create({
        url: `${receivers.base}/hook`,
        events: ['article.created'],
      });
      const published = await publisher.publish(
        'article.create',
        { title: 'Told to subscribers', slug: slug('told'), body: ['x'] },
        { wait: 10 },
      );
      let received = receivers.receivedAt('/hook');
      for (let waited = 0; received.length === 0 && waited < 10_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        received = receivers.receivedAt('/hook');
      }
      const [delivery] = received;
      expect(delivery).toBeDefined();
      const message = verifyWebhook(endpoint.secret, delivery!.headers, delivery!.body);
      expect(message.type).toBe('article.created');
      expect(message.type === 'article.created' && message.data.eventId).toBe(published.receipt.id);
      expect(() =>
        verifyWebhook(
          endpoint.secret,
          delivery!.headers as Record<string, string>,
          delivery!.body.replace('Told', 'Sold'),
        ),
      ).toThrow(WebhookVerificationFailed);
      const deliveries = [];
      for await (const item of owner.deliveries(endpoint.id)) deliveries.push(item);
      expect(deliveries.length).toBeGreaterThan(0);
    } finally {
      await receivers.close();
    }
  });
});

describe('endpoints', () => {
  it('sets a filter and a rate, refuses an unknown field by its path, pauses and resumes', async () => {
    const { owner } = await newPublisher(service);
    const filter = { field: 'data.article.category', eq: 'News' };
    const endpoint = await owner.endpoints.create({
      url: 'https://hooks.example.com/client',
      events: ['article.created'],
      filter,
      rate: { perSecond: 10 },
    });
    expect(endpoint).toMatchObject({
      state: 'enabled',
      filter,
      rate: { perSecond: 10, inFlight: null },
    });

    const refused = await owner.endpoints
      .update(endpoint.id, { filter: { not: { field: 'data.nope', exists: true } } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(IngestError);
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect((refused as IngestError).errors.map((error) => error.path)).toEqual([
      'filter.not.field',
    ]);

    const paused = await owner.endpoints.pause(endpoint.id);
    expect(paused.state).toBe('paused');
    expect(paused.pausedAt).not.toBeNull();
    expect(paused.pausedReason).toEqual(expect.any(String));
    expect((await owner.endpoints.get(endpoint.id)).state).toBe('paused');
    const resumed = await owner.endpoints.resume(endpoint.id);
    expect(resumed).toMatchObject({ state: 'enabled', pausedAt: null, pausedReason: null });

    const cleared = await owner.endpoints.update(endpoint.id, { filter: null, rate: null });
    expect(cleared).toMatchObject({ filter: null, rate: null });
    await owner.endpoints.delete(endpoint.id);
  });
});

describe('API keys', () => {
  it('creates, lists, rotates and revokes', async () => {
    const { owner, key } = await newPublisher(service);
    const rotated = await owner.apiKeys.rotate(key.id);
    expect(rotated.id).not.toBe(key.id);
    expect(rotated.scopes).toEqual(key.scopes);
    const listed = await owner.apiKeys.list();
    const revokedOld = listed.items.find((item) => item.id === key.id);
    expect(revokedOld === undefined || revokedOld.revokedAt !== null).toBe(true);
    const refused = await owner
      .with({ apiKey: key.key, token: undefined })
      .publish('article.create', { title: 'Old key', body: ['x'] })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 401 });
    await owner.apiKeys.revoke(rotated.id);
  });
});
