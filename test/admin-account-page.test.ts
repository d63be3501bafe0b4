// An account's page for operators: its backlog, share and who changed it, keys, endpoints,
// and what became of its recent events (failures and refusals by code); the share audit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import { accept, articleData, finalReceipt, sendEvent, uniqueSlug } from './support/content.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let api: TestApi;
let worker: WorkerProcess;
let admin: RegisteredAccount;
beforeAll(async () => {
  api = await startTestApi();
  [worker, admin] = await Promise.all([startWorkerProcess(api.tag), registerAdmin(api)]);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

const asAdmin = (method: 'GET' | 'PUT', url: string, payload?: object) =>
  api.app.inject({ method, url, headers: bearer(admin.token), ...(payload ? { payload } : {}) });

interface Page {
  id: string;
  handle: string;
  share: { weight: number; maxInFlight: number | null };
  shareChanges: Array<{ operator: { id: string | null; email: string }; from: object; to: object }>;
  apiKeys: Array<{ id: string; name: string; revokedAt: string | null }>;
  endpoints: Array<{ id: string; url: string; state: string }>;
  activity: Record<string, unknown>;
  backlog: Record<string, unknown>;
}

describe("an account's page", () => {
  it('shows its share changes, keys, endpoints, failures and refusals, never a secret', async () => {
    const account = await registerAccount(api);
    const publishing = await createKey(api, account, {
      name: 'publisher bot',
      scopes: ['content:create'],
    });
    const revoked = await createKey(api, account, { name: 'old bot', scopes: ['content:read'] });
    await api.app.inject({
      method: 'DELETE',
      url: `/api/webhooks/api-keys/${revoked.id}`,
      headers: bearer(account.token),
    });

    // Failures with known codes: two updates of articles that do not exist, one slug taken.
    const key = publishing.key;
    const slug = uniqueSlug();
    const ids = [
      await accept(api, key, 'article.update', { slug: uniqueSlug(), title: 'x' }),
      await accept(api, key, 'article.update', { slug: uniqueSlug(), title: 'y' }),
      await accept(api, key, 'article.create', articleData({ slug })),
    ];
    for (const id of ids) await finalReceipt(api, key, id);
    const taken = await accept(api, key, 'article.create', articleData({ slug }));
    expect((await finalReceipt(api, key, taken)).status).toBe('failed');
    // Refusals: an unknown event and an article without a title.
    expect((await sendEvent(api, key, 'article.publish', { slug })).statusCode).toBe(400);
    expect((await sendEvent(api, key, 'article.publish', { slug })).statusCode).toBe(400);
    const untitled = articleData({ slug: uniqueSlug(), title: undefined });
    expect((await sendEvent(api, key, 'article.create', untitled)).statusCode).toBe(400);

    // An endpoint made after the events were applied: it has had no delivery.
    const endpoint = await api.app.inject({
      method: 'POST',
      url: '/api/webhooks/endpoints',
      headers: bearer(account.token),
      payload: { url: 'https://hooks.example.com/in' },
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const { secret: endpointSecret } = endpoint.json<{ secret: string }>();

    // The share changed twice, by the operator of this test.
    const shareUrl = `/api/admin/accounts/${account.id}/share`;
    expect((await asAdmin('PUT', shareUrl, { weight: 3, maxInFlight: null })).statusCode).toBe(200);
    expect((await asAdmin('PUT', shareUrl, { weight: 5, maxInFlight: 8 })).statusCode).toBe(200);

    // By handle, in any case, as the events search takes it.
    const response = await asAdmin('GET', `/api/admin/accounts/${account.handle.toUpperCase()}`);
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json<Page>();
    expect(page).toMatchObject({
      id: account.id,
      handle: account.handle,
      email: account.email,
      createdAt: expect.any(String),
      backlog: { queued: 0, processing: 0, oldestWaitingAgeSeconds: null },
      share: { weight: 5, maxInFlight: 8 },
      // The service's per-account limits times the weight.
      rateLimits: {
        contentPerMinute: 5 * api.deps.config.limits.contentPerAccountPerMinute,
        receiptsPerMinute: 5 * api.deps.config.limits.receiptsPerAccountPerMinute,
      },
      activity: {
        lastHour: { accepted: 4, applied: 1, failed: 3, rejected: 3 },
        lastDay: { accepted: 4, applied: 1, failed: 3, rejected: 3 },
        failures: [
          { code: 'ARTICLE_NOT_FOUND', lastHour: 2, lastDay: 2 },
          { code: 'SLUG_TAKEN', lastHour: 1, lastDay: 1 },
        ],
        refusals: [
          { code: 'UNKNOWN_EVENT', lastHour: 2, lastDay: 2 },
          { code: 'VALIDATION_FAILED', lastHour: 1, lastDay: 1 },
        ],
        capped: false,
      },
    });
    // The audit, newest first, naming the operator.
    expect(page.shareChanges).toMatchObject([
      {
        operator: { id: admin.id, email: admin.email },
        from: { weight: 3, maxInFlight: null },
        to: { weight: 5, maxInFlight: 8 },
      },
      {
        operator: { id: admin.id, email: admin.email },
        from: { weight: 1, maxInFlight: null },
        to: { weight: 3, maxInFlight: null },
      },
    ]);
    expect(page.apiKeys).toMatchObject([
      { id: revoked.id, name: 'old bot', scopes: ['content:read'], revokedAt: expect.any(String) },
      {
        id: publishing.id,
        name: 'publisher bot',
        prefix: expect.any(String),
        revokedAt: null,
        lastUsedAt: expect.any(String),
      },
    ]);
    expect(page.endpoints).toMatchObject([
      {
        url: 'https://hooks.example.com/in',
        state: 'enabled',
        lastDay: { succeeded: 0, failed: 0, pending: 0 },
      },
    ]);
    // No secret of a key or an endpoint, nor a key's hash, in any form.
    for (const secret of [
      publishing.key,
      publishing.signingSecret,
      revoked.key,
      revoked.signingSecret,
      endpointSecret,
    ]) {
      expect(response.body).not.toContain(secret);
    }
    expect(response.body).not.toMatch(/keyHash|signingSecret|"secret"/);
    // By id, the same page.
    expect((await asAdmin('GET', `/api/admin/accounts/${account.id}`)).json()).toEqual(page);
  });

  it('answers 404 for an unknown handle or id, 400 for neither, 403 to a publisher', async () => {
    expectProblem(await asAdmin('GET', '/api/admin/accounts/nobody_here_at_all'), 404, 'NOT_FOUND');
    expectProblem(
      await asAdmin('GET', '/api/admin/accounts/01a20000-0000-7000-8000-000000000000'),
      404,
      'NOT_FOUND',
    );
    expectProblem(
      await asAdmin('GET', '/api/admin/accounts/not-a-handle'),
      400,
      'VALIDATION_FAILED',
    );
    const publisher = await registerAccount(api);
    expectProblem(
      await api.app.inject({
        method: 'GET',
        url: `/api/admin/accounts/${publisher.id}`,
        headers: bearer(publisher.token),
      }),
      403,
      'FORBIDDEN',
    );
  });

  it("erases an account's share changes with it", async () => {
    const account = await registerAccount(api);
    await asAdmin('PUT', `/api/admin/accounts/${account.id}/share`, { weight: 2, maxInFlight: 1 });
    const changes = () =>
      api.deps.db.prisma.accountShareChange.count({ where: { accountId: account.id } });
    expect(await changes()).toBe(1);
    await api.deps.db.prisma.account.delete({ where: { id: account.id } });
    expect(await changes()).toBe(0);
  });
});
