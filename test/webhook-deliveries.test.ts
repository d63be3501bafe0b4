// Outgoing webhooks delivered by a real worker process to real HTTP receivers on
// loopback (allowed through WEBHOOK_ALLOWED_PRIVATE_HOSTS), every delivery checked with
// the standardwebhooks package's own Webhook.verify.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { expectProblem } from './support/problems.js';
import { startReceivers, type Receivers } from './support/receivers.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';
import { sample } from './support/metrics.js';

let receivers: Receivers;
let base: string;

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms',
  WEBHOOK_TIMEOUT_MS: '500',
};

let api: TestApi;
let worker: WorkerProcess;
let workerUrl: string;
beforeAll(async () => {
  receivers = await startReceivers();
  base = receivers.base;
  // The API lets owners register localhost; the worker does not deliver there (below).
  api = await startTestApi({
    ...WEBHOOK_ENV,
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1,localhost',
  });
  worker = await startWorkerProcess(api.tag, {
    ...WEBHOOK_ENV,
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    WORKER_QUEUES: 'deliveries',
  });
  workerUrl = JSON.parse(await worker.waitForLine(/worker ready/)).http as string;
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await receivers?.close();
});

const call = (account: RegisteredAccount, method: 'GET' | 'POST', path: string, payload?: object) =>
  api.app.inject({
    method,
    url: `/api/webhooks/endpoints${path}`,
    headers: bearer(account.token),
    ...(payload === undefined ? {} : { payload }),
  });

async function endpointFor(account: RegisteredAccount, path: string, url = `${base}${path}`) {
  const response = await call(account, 'POST', '', { url });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; secret: string }>();
}

interface DeliveryView {
  id: string;
  messageId: string;
  status: string;
  attempts: number;
  responseStatus: number | null;
  latencyMs: number | null;
  responseBody: string | null;
  error: string | null;
}

const deliveriesOf = async (account: RegisteredAccount, endpointId: string) =>
  (await call(account, 'GET', `/${endpointId}/deliveries`)).json<{ items: DeliveryView[] }>().items;

/** The delivery once it is no longer pending. */
async function finished(account: RegisteredAccount, endpointId: string, deliveryId: string) {
  let found: DeliveryView | undefined;
  await expect
    .poll(
      async () => {
        found = (await deliveriesOf(account, endpointId)).find((d) => d.id === deliveryId);
        return found?.status;
      },
      { timeout: 15_000, interval: 100 },
    )
    .not.toBe('pending');
  if (found === undefined) throw new Error('delivery vanished');
  return found;
}

async function ping(account: RegisteredAccount, endpointId: string) {
  const response = await call(account, 'POST', `/${endpointId}/test`);
  expect(response.statusCode, response.body).toBe(202);
  return response.json<DeliveryView>();
}

const deliveredTo = (path: string) => receivers.receivedAt(path);

describe('a ping', () => {
  it('is delivered signed, verified by the reference verifier, and recorded with its answer', async () => {
    const account = await registerAccount(api);
    receivers.script('/ok', [{ status: 200, body: 'thanks' }]);
    const { id, secret } = await endpointFor(account, '/ok');
    const queued = await ping(account, id);
    expect(queued).toMatchObject({
      status: 'pending',
      attempts: 0,
      messageId: expect.stringMatching(/^msg_/),
    });
    const done = await finished(account, id, queued.id);
    expect(done).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      responseStatus: 200,
      responseBody: 'thanks',
      error: null,
    });
    expect(done.latencyMs).toEqual(expect.any(Number));
    const [request] = deliveredTo('/ok');
    if (request === undefined) throw new Error('nothing received');
    expect(request.headers['webhook-id']).toBe(queued.messageId);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^ingest-webhooks\//);
    const verified = new Webhook(secret).verify(
      request.body,
      request.headers as Record<string, string>,
    );
    expect(verified).toMatchObject({
      type: 'ping',
      timestamp: expect.any(String),
      data: { endpointId: id },
    });
  });
});

describe('failed attempts', () => {
  it('retries after a 500, with the same webhook-id, until the receiver takes it', async () => {
    const account = await registerAccount(api);
    receivers.script('/flaky', [{ status: 500, body: 'down' }, { status: 503 }, { status: 204 }]);
    const { id } = await endpointFor(account, '/flaky');
    const queued = await ping(account, id);
    expect(await finished(account, id, queued.id)).toMatchObject({
      status: 'succeeded',
      attempts: 3,
      responseStatus: 204,
    });
    const ids = deliveredTo('/flaky').map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([queued.messageId, queued.messageId, queued.messageId]);
    // The success ends the endpoint's failure streak.
    expect((await call(account, 'GET', `/${id}`)).json()).toMatchObject({
      failingSince: null,
      enabled: true,
    });
  });

  it('gives up after the last attempt of the schedule when the receiver never answers in time', async () => {
    const account = await registerAccount(api);
    receivers.script('/slow', [{ status: 200, delayMs: 2_000 }]);
    const { id } = await endpointFor(account, '/slow');
    const queued = await ping(account, id);
    expect(await finished(account, id, queued.id)).toMatchObject({
      status: 'failed',
      attempts: 3,
      responseStatus: null,
      error: 'no answer within 500 ms',
    });
    expect((await call(account, 'GET', `/${id}`)).json()).toMatchObject({
      enabled: true,
      failingSince: expect.any(String),
    });
  });

  it('disables the endpoint on a 410, and says why and since when', async () => {
    const account = await registerAccount(api);
    receivers.script('/gone', [{ status: 410 }]);
    const { id } = await endpointFor(account, '/gone');
    const queued = await ping(account, id);
    expect(await finished(account, id, queued.id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      responseStatus: 410,
    });
    const endpoint = (await call(account, 'GET', `/${id}`)).json();
    expect(endpoint).toMatchObject({
      enabled: false,
      disabledReason: expect.stringContaining('410'),
      disabledAt: expect.any(String),
    });
    // Nothing more goes to a disabled endpoint.
    const again = await ping(account, id);
    expect(await finished(account, id, again.id)).toMatchObject({
      status: 'failed',
      attempts: 0,
      error: 'the endpoint is disabled',
    });
    expect(deliveredTo('/gone')).toHaveLength(1);
  });

  it('pauses an endpoint whose attempts have all failed for WEBHOOK_BREAKER_AFTER, holding its deliveries', async () => {
    const account = await registerAccount(api);
    receivers.script('/failing', [{ status: 500 }]);
    const { id } = await endpointFor(account, '/failing');
    const since = new Date(Date.now() - 7 * 3_600_000);
    await api.deps.db.prisma.webhookEndpoint.update({
      where: { id },
      data: { failingSince: since },
    });
    const queued = await ping(account, id);
    await expect
      .poll(async () => (await deliveriesOf(account, id)).find((d) => d.id === queued.id))
      .toMatchObject({ status: 'held', attempts: 1 });
    expect((await call(account, 'GET', `/${id}`)).json()).toMatchObject({
      enabled: true,
      state: 'paused',
      pausedReason: expect.stringContaining(`failed since ${since.toISOString()}`),
      failingSince: since.toISOString(),
    });
  });

  it('refuses, at delivery, an address the worker may not reach, and records why', async () => {
    const account = await registerAccount(api);
    const port = new URL(base).port;
    const { id } = await endpointFor(account, '/local', `http://localhost:${port}/local`);
    const queued = await ping(account, id);
    expect(await finished(account, id, queued.id)).toMatchObject({
      status: 'failed',
      attempts: 3,
      error: expect.stringContaining('localhost'),
    });
    expect(deliveredTo('/local')).toHaveLength(0);
  });
});

describe('secrets and resends', () => {
  it('signs with both secrets while a rotation overlaps', async () => {
    const account = await registerAccount(api);
    receivers.script('/rotating', [{ status: 200 }]);
    const { id, secret: before } = await endpointFor(account, '/rotating');
    const { secret: after } = (await call(account, 'POST', `/${id}/secret`)).json<{
      secret: string;
    }>();
    const queued = await ping(account, id);
    await finished(account, id, queued.id);
    const [request] = deliveredTo('/rotating');
    if (request === undefined) throw new Error('nothing received');
    for (const secret of [before, after]) {
      expect(
        new Webhook(secret).verify(request.body, request.headers as Record<string, string>),
      ).toMatchObject({
        type: 'ping',
      });
    }
  });

  it('resends a message as a new delivery with the same webhook-id', async () => {
    const account = await registerAccount(api);
    receivers.script('/again', [{ status: 200 }]);
    const { id } = await endpointFor(account, '/again');
    const first = await ping(account, id);
    await finished(account, id, first.id);
    const resent = await call(account, 'POST', `/${id}/deliveries/${first.id}/resend`);
    expect(resent.statusCode, resent.body).toBe(202);
    const second = resent.json<DeliveryView>();
    expect(second.id).not.toBe(first.id);
    expect(second.messageId).toBe(first.messageId);
    expect(await finished(account, id, second.id)).toMatchObject({ status: 'succeeded' });
    expect(deliveredTo('/again').map((r) => r.body)).toHaveLength(2);
    const [a, b] = deliveredTo('/again');
    expect(a?.body).toBe(b?.body);
    const listed = await deliveriesOf(account, id);
    expect(listed.map((d) => d.id)).toEqual([second.id, first.id]);
  });

  it("answers another account's endpoint and deliveries as missing ones", async () => {
    const owner = await registerAccount(api);
    const stranger = await registerAccount(api);
    receivers.script('/private', [{ status: 200 }]);
    const { id } = await endpointFor(owner, '/private');
    const delivery = await ping(owner, id);
    expectProblem(await call(stranger, 'POST', `/${id}/test`), 404, 'NOT_FOUND');
    expectProblem(await call(stranger, 'GET', `/${id}/deliveries`), 404, 'NOT_FOUND');
    expectProblem(
      await call(stranger, 'POST', `/${id}/deliveries/${delivery.id}/resend`),
      404,
      'NOT_FOUND',
    );
    // A delivery id of another endpoint, even one's own, is not this endpoint's.
    const { id: otherEndpoint } = await endpointFor(owner, '/private');
    expectProblem(
      await call(owner, 'POST', `/${otherEndpoint}/deliveries/${delivery.id}/resend`),
      404,
      'NOT_FOUND',
    );
  });
});

describe("the worker's metrics", () => {
  /** A series' value in the worker's /metrics, 0 when it is not there yet. */
  const series = async (name: string, labels: Record<string, string>): Promise<number> =>
    sample(await (await fetch(`${workerUrl}/metrics`)).text(), name, labels);

  it('count attempts by outcome, time them, and count the endpoints disabled', async () => {
    const account = await registerAccount(api);
    receivers.script('/counted', [{ status: 200 }]);
    receivers.script('/counted-gone', [{ status: 410 }]);
    const before = {
      succeeded: await series('ingest_webhook_attempts_total', { outcome: 'succeeded' }),
      gone: await series('ingest_webhook_attempts_total', { outcome: 'gone' }),
      timed: await series('ingest_webhook_attempt_seconds_count', { outcome: 'succeeded' }),
      disabled: await series('ingest_webhook_endpoints_disabled_total', { reason: 'gone' }),
    };
    const ok = await endpointFor(account, '/counted');
    const gone = await endpointFor(account, '/counted-gone');
    await finished(account, ok.id, (await ping(account, ok.id)).id);
    await finished(account, gone.id, (await ping(account, gone.id)).id);
    expect(await series('ingest_webhook_attempts_total', { outcome: 'succeeded' })).toBe(
      before.succeeded + 1,
    );
    expect(await series('ingest_webhook_attempts_total', { outcome: 'gone' })).toBe(
      before.gone + 1,
    );
    expect(await series('ingest_webhook_attempt_seconds_count', { outcome: 'succeeded' })).toBe(
      before.timed + 1,
    );
    expect(await series('ingest_webhook_endpoints_disabled_total', { reason: 'gone' })).toBe(
      before.disabled + 1,
    );
  });
});
