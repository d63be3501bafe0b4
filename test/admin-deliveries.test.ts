// The operators' view of outgoing webhooks, against a real worker process delivering to
// loopback receivers: every account's endpoints with their last day's figures and last
// error, the delivery search, and resending one delivery or every failed one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import { expectProblem } from './support/problems.js';
import { startReceivers, type Receivers } from './support/receivers.js';
import { uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '0',
};

let receivers: Receivers;
let api: TestApi;
let worker: WorkerProcess;
let admin: RegisteredAccount;
beforeAll(async () => {
  receivers = await startReceivers();
  api = await startTestApi(WEBHOOK_ENV);
  [worker, admin] = await Promise.all([
    startWorkerProcess(api.tag, { ...WEBHOOK_ENV, WORKER_QUEUES: 'deliveries' }),
    registerAdmin(api),
  ]);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await receivers?.close();
});

const asAdmin = (method: 'GET' | 'POST', url: string, payload?: object) =>
  api.app.inject({
    method,
    url,
    headers: bearer(admin.token),
    ...(payload === undefined ? {} : { payload }),
  });

async function endpointFor(account: RegisteredAccount, path: string) {
  const response = await api.app.inject({
    method: 'POST',
    url: '/api/webhooks/endpoints',
    headers: bearer(account.token),
    payload: { url: `${receivers.base}${path}` },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

/** Pings the endpoint and waits for the delivery to finish; returns its id. */
async function pinged(account: RegisteredAccount, endpointId: string): Promise<string> {
  const response = await api.app.inject({
    method: 'POST',
    url: `/api/webhooks/endpoints/${endpointId}/test`,
    headers: bearer(account.token),
  });
  expect(response.statusCode, response.body).toBe(202);
  const { id } = response.json<{ id: string }>();
  // Until it is listed as finished: `not pending` alone would also pass while the list
  // does not show it yet, and the test would go on with a delivery still in flight.
  await expect
    .poll(async () => (await deliveries({ endpointId })).find((d) => d.id === id)?.status, {
      timeout: 15_000,
    })
    .toMatch(/^(failed|succeeded)$/);
  return id;
}

interface AdminDeliveryView {
  id: string;
  messageId: string;
  status: string;
  accountId: string;
  accountHandle: string;
  eventId: string | null;
  type: string;
}

async function deliveries(filters: Record<string, string>) {
  const response = await asAdmin(
    'GET',
    `/api/admin/deliveries?${new URLSearchParams(filters).toString()}`,
  );
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ items: AdminDeliveryView[] }>().items;
}

describe("operators' endpoints", () => {
  it("show every account's endpoints with their last day's figures and last error", async () => {
    const owner = await registerAccount(api);
    const path = `/figures-${uniqueSlug()}`;
    receivers.script(path, [{ status: 200 }, { status: 500, body: 'broken' }, { status: 200 }]);
    const endpointId = await endpointFor(owner, path);
    for (let i = 0; i < 3; i += 1) await pinged(owner, endpointId);

    const listed = await asAdmin('GET', `/api/admin/endpoints?accountId=${owner.id}`);
    expect(listed.statusCode, listed.body).toBe(200);
    const [endpoint] = listed.json<{ items: Array<Record<string, unknown>> }>().items;
    expect(endpoint).toMatchObject({
      id: endpointId,
      state: 'enabled',
      account: { id: owner.id, handle: owner.handle },
      lastDay: { succeeded: 2, failed: 1, pending: 0, successRate: 2 / 3 },
      lastError: { responseStatus: 500, error: expect.stringContaining('500') },
    });
    expect(endpoint).not.toHaveProperty('secret');
    // The account named by its handle, in any case, as the event search takes it.
    const byHandle = await asAdmin(
      'GET',
      `/api/admin/endpoints?accountId=${owner.handle.toUpperCase()}`,
    );
    expect(byHandle.json<{ items: Array<{ id: string }> }>().items.map((e) => e.id)).toEqual([
      endpointId,
    ]);
    const nobody = await asAdmin('GET', '/api/admin/endpoints?accountId=no_such_handle');
    expect(nobody.json<{ items: unknown[] }>().items).toEqual([]);
    expectProblem(
      await asAdmin('GET', '/api/admin/endpoints?accountId=ab-cd'),
      400,
      'VALIDATION_FAILED',
    );

    // The state filter: failing until a success, disabled once its owner disables it.
    const failing = await asAdmin(
      'GET',
      `/api/admin/endpoints?accountId=${owner.id}&state=failing`,
    );
    expect(failing.json<{ items: unknown[] }>().items).toHaveLength(0);
    await api.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/endpoints/${endpointId}`,
      headers: bearer(owner.token),
      payload: { enabled: false },
    });
    const disabled = await asAdmin(
      'GET',
      `/api/admin/endpoints?accountId=${owner.id}&state=disabled`,
    );
    expect(disabled.json<{ items: Array<{ id: string }> }>().items.map((e) => e.id)).toEqual([
      endpointId,
    ]);
  });

  it('list as one snapshot while accounts and their endpoints are removed', async () => {
    // An endpoint's account, and a delivery's message, were read by a statement of their
    // own: an account removed in between (tests' teardown removes theirs) made a 500.
    const owners = await Promise.all(Array.from({ length: 30 }, () => registerAccount(api)));
    await Promise.all(
      owners.map(async (owner) => {
        const endpointId = await endpointFor(owner, `/gone-${uniqueSlug()}`);
        const ping = await api.app.inject({
          method: 'POST',
          url: `/api/webhooks/endpoints/${endpointId}/test`,
          headers: bearer(owner.token),
        });
        expect(ping.statusCode, ping.body).toBeLessThan(300);
      }),
    );
    let removing = true;
    const removals = (async () => {
      for (const owner of owners) {
        await api.deps.db.prisma.account.delete({ where: { id: owner.id } });
      }
    })().finally(() => (removing = false));
    const statuses: number[] = [];
    while (removing) {
      const pages = await Promise.all(
        ['endpoints', 'deliveries', 'endpoints', 'deliveries'].map((list) =>
          asAdmin('GET', `/api/admin/${list}?limit=100`),
        ),
      );
      statuses.push(...pages.map((page) => page.statusCode));
    }
    await removals;
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('are for operators only', async () => {
    const publisher = await registerAccount(api);
    for (const url of ['/api/admin/endpoints', '/api/admin/deliveries']) {
      const response = await api.app.inject({
        method: 'GET',
        url,
        headers: bearer(publisher.token),
      });
      expectProblem(response, 403, 'FORBIDDEN');
    }
  });
});

describe("operators' deliveries", () => {
  it('are searched by account, endpoint and status, and resent one at a time', async () => {
    const owner = await registerAccount(api);
    const path = `/search-${uniqueSlug()}`;
    receivers.script(path, [{ status: 503 }, { status: 200 }]);
    const endpointId = await endpointFor(owner, path);
    const failedId = await pinged(owner, endpointId);
    const okId = await pinged(owner, endpointId);

    expect((await deliveries({ accountId: owner.id })).map((d) => d.id)).toEqual([okId, failedId]);
    expect((await deliveries({ accountId: owner.handle.toUpperCase() })).map((d) => d.id)).toEqual([
      okId,
      failedId,
    ]);
    expect(await deliveries({ accountId: 'no_such_handle' })).toEqual([]);
    const [failed] = await deliveries({ endpointId, status: 'failed' });
    expect(failed).toMatchObject({
      id: failedId,
      accountId: owner.id,
      accountHandle: owner.handle,
      type: 'ping',
      eventId: null,
    });

    const resent = await asAdmin('POST', `/api/admin/deliveries/${failedId}/resend`);
    expect(resent.statusCode, resent.body).toBe(202);
    const again = resent.json<AdminDeliveryView>();
    expect(again).toMatchObject({
      messageId: failed?.messageId,
      status: 'pending',
      accountHandle: owner.handle,
    });
    await expect
      .poll(async () => (await deliveries({ endpointId })).find((d) => d.id === again.id)?.status, {
        timeout: 15_000,
      })
      .toBe('succeeded');
    expectProblem(
      await asAdmin('POST', `/api/admin/deliveries/${crypto.randomUUID()}/resend`),
      404,
      'NOT_FOUND',
    );
  });

  it('failed are resent in bulk once per message, and not again while delivered or pending', async () => {
    const owner = await registerAccount(api);
    const path = `/bulk-${uniqueSlug()}`;
    receivers.script(path, [{ status: 500 }]);
    const endpointId = await endpointFor(owner, path);
    const first = await pinged(owner, endpointId);
    await pinged(owner, endpointId);
    // The first message failed twice: it is still resent once.
    const manual = await asAdmin('POST', `/api/admin/deliveries/${first}/resend`);
    const manualId = manual.json<{ id: string }>().id;
    await expect
      .poll(async () => (await deliveries({ endpointId })).find((d) => d.id === manualId)?.status)
      .toBe('failed');

    receivers.script(path, [{ status: 200 }]);
    const elsewhere = { accountId: 'no_such_handle' };
    expect((await asAdmin('POST', '/api/admin/deliveries/resend', elsewhere)).json()).toEqual({
      resent: 0,
      more: false,
    });
    // By its handle, as the lists take it.
    const bulk = await asAdmin('POST', '/api/admin/deliveries/resend', {
      accountId: owner.handle.toUpperCase(),
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(bulk.json()).toEqual({ resent: 2, more: false });
    await expect
      .poll(async () => (await deliveries({ endpointId, status: 'succeeded' })).length, {
        timeout: 15_000,
      })
      .toBe(2);
    const twice = await asAdmin('POST', '/api/admin/deliveries/resend', { accountId: owner.id });
    expect(twice.json()).toEqual({ resent: 0, more: false });
  });
});
