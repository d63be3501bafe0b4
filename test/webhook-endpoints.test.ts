import { SUBSCRIBABLE_MESSAGE_TYPES } from '@ingest/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ WEBHOOK_ENDPOINT_QUOTA: '3' });
});
afterAll(() => api.close());

const ALL_TYPES = [...SUBSCRIBABLE_MESSAGE_TYPES];

const call = (
  account: RegisteredAccount,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  payload?: object,
) =>
  api.app.inject({
    method,
    url: `/api/webhooks/endpoints${path}`,
    headers: bearer(account.token),
    ...(payload === undefined ? {} : { payload }),
  });

const create = async (account: RegisteredAccount, payload: object) => {
  const response = await call(account, 'POST', '', payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; secret: string }>();
};

describe('POST /api/webhooks/endpoints', () => {
  it('registers an endpoint, hearing every type unless told, with its secret shown once', async () => {
    const account = await registerAccount(api);
    const response = await call(account, 'POST', '', {
      url: 'https://hooks.example.com/in?team=1',
      description: '  search index ',
    });
    expect(response.statusCode).toBe(201);
    const created = response.json();
    expect(created).toEqual({
      id: expect.any(String),
      url: 'https://hooks.example.com/in?team=1',
      events: ALL_TYPES,
      description: 'search index',
      enabled: true,
      state: 'enabled',
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      pausedAt: null,
      pausedReason: null,
      filter: null,
      rate: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const read = await call(account, 'GET', `/${created.id}`);
    expect(read.statusCode).toBe(200);
    const { secret: _shownOnce, ...withoutSecret } = created;
    expect(read.json()).toEqual(withoutSecret);
    expect(read.body).not.toContain(created.secret);
    const listed = await call(account, 'GET', '');
    expect(listed.json()).toEqual({ items: [withoutSecret] });
  });

  it('keeps the event types named, once each', async () => {
    const account = await registerAccount(api);
    const { id } = await create(account, {
      url: 'https://hooks.example.com/a',
      events: ['article.deleted', 'article.created', 'article.deleted'],
    });
    expect((await call(account, 'GET', `/${id}`)).json().events).toEqual([
      'article.deleted',
      'article.created',
    ]);
  });

  it.each([
    ['http://hooks.example.com/in', 'https'],
    ['https://127.0.0.1/in', 'loopback'],
    ['https://[::1]/in', 'loopback'],
    ['https://10.0.0.8/in', 'private'],
    ['https://[::ffff:192.168.0.1]/in', 'IPv4-mapped'],
    ['https://169.254.169.254/latest/meta-data', 'cloud metadata'],
    ['https://localhost:8443/in', 'localhost'],
    ['https://user:secret@hooks.example.com/in', 'user name or password'],
    ['hooks.example.com/in', 'absolute URL'],
  ])('refuses %s with 400 naming the url (%s), creating nothing', async (url, reason) => {
    const account = await registerAccount(api);
    const refused = await call(account, 'POST', '', { url });
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(refused.json().errors).toEqual([
      { path: 'url', message: expect.stringContaining(reason) },
    ]);
    expect(
      await api.deps.db.prisma.webhookEndpoint.count({ where: { accountId: account.id } }),
    ).toBe(0);
  });

  it('refuses unknown event types and fields with 400', async () => {
    const account = await registerAccount(api);
    const unknownType = await call(account, 'POST', '', {
      url: 'https://hooks.example.com/in',
      events: ['article.create'],
    });
    expectProblem(unknownType, 400, 'VALIDATION_FAILED');
    expect(unknownType.json().errors[0].path).toBe('events.0');
    expectProblem(
      await call(account, 'POST', '', { url: 'https://hooks.example.com/in', secret: 'mine' }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('holds an account to its quota with 409 ENDPOINT_QUOTA_EXCEEDED, counting concurrent requests', async () => {
    const account = await registerAccount(api);
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(account, 'POST', '', { url: `https://hooks.example.com/${i}` }),
      ),
    );
    const codes = responses.map((response) => response.statusCode).sort();
    expect(codes).toEqual([201, 201, 201, 409, 409, 409]);
    const refused = responses.find((response) => response.statusCode === 409);
    if (refused === undefined) throw new Error('no refusal');
    expectProblem(refused, 409, 'ENDPOINT_QUOTA_EXCEEDED');
    // Deleting one makes room for another.
    const [first] = (await call(account, 'GET', '')).json().items;
    expect((await call(account, 'DELETE', `/${first.id}`)).statusCode).toBe(204);
    await create(account, { url: 'https://hooks.example.com/again' });
  });
});

describe('another account', () => {
  it("answers every route on another account's endpoint as on a missing one: 404, changing nothing", async () => {
    const owner = await registerAccount(api);
    const stranger = await registerAccount(api);
    const { id } = await create(owner, { url: 'https://hooks.example.com/mine' });
    const before = await api.deps.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    for (const [method, path, payload] of [
      ['GET', `/${id}`, undefined],
      ['PATCH', `/${id}`, { enabled: false }],
      ['POST', `/${id}/secret`, undefined],
      ['DELETE', `/${id}`, undefined],
    ] as const) {
      const response = await call(stranger, method, path, payload);
      expectProblem(response, 404, 'NOT_FOUND');
    }
    expect((await call(stranger, 'GET', '')).json()).toEqual({ items: [] });
    expect(await api.deps.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toEqual(
      before,
    );
  });

  it('is refused without a bearer token', async () => {
    const response = await api.app.inject({ method: 'GET', url: '/api/webhooks/endpoints' });
    expectProblem(response, 401, 'UNAUTHENTICATED');
  });
});

describe('PATCH /api/webhooks/endpoints/:id', () => {
  it('changes what is sent and nothing else; a refused url changes nothing', async () => {
    const account = await registerAccount(api);
    const { id } = await create(account, {
      url: 'https://hooks.example.com/old',
      description: 'a',
    });
    const changed = await call(account, 'PATCH', `/${id}`, {
      url: 'https://hooks.example.com/new',
      events: ['highlight.created'],
      description: null,
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({
      url: 'https://hooks.example.com/new',
      events: ['highlight.created'],
      description: null,
      enabled: true,
    });
    expectProblem(
      await call(account, 'PATCH', `/${id}`, { url: 'https://10.1.1.1/', enabled: false }),
      400,
      'VALIDATION_FAILED',
    );
    expectProblem(await call(account, 'PATCH', `/${id}`, {}), 400, 'VALIDATION_FAILED');
    expect((await call(account, 'GET', `/${id}`)).json()).toMatchObject({
      url: 'https://hooks.example.com/new',
      enabled: true,
    });
  });

  it('enabling an endpoint the service disabled clears why, since when and the failure streak', async () => {
    const account = await registerAccount(api);
    const { id } = await create(account, { url: 'https://hooks.example.com/gone' });
    const since = new Date(Date.now() - 6 * 86_400_000);
    await api.deps.db.prisma.webhookEndpoint.update({
      where: { id },
      data: {
        enabled: false,
        disabledReason: 'failing since 2026-11-17 with no success',
        disabledAt: new Date(),
        failingSince: since,
      },
    });
    const disabled = (await call(account, 'GET', `/${id}`)).json();
    expect(disabled).toMatchObject({
      enabled: false,
      disabledReason: expect.stringContaining('failing'),
      failingSince: since.toISOString(),
    });
    const enabled = await call(account, 'PATCH', `/${id}`, { enabled: true });
    expect(enabled.json()).toMatchObject({
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
    });
  });
});

describe('POST /api/webhooks/endpoints/:id/secret', () => {
  it('shows a new secret once and keeps the old one for the overlap', async () => {
    const account = await registerAccount(api);
    const { id, secret: first } = await create(account, { url: 'https://hooks.example.com/r' });
    const before = Date.now();
    const rotated = await call(account, 'POST', `/${id}/secret`);
    const after = Date.now();
    expect(rotated.statusCode).toBe(200);
    const { secret, previousSecretExpiresAt } = rotated.json();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(first);
    // 24 hours from the moment of the rotation, which lies between before and after.
    const expiresAt = Date.parse(previousSecretExpiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 24 * 3_600_000);
    expect(expiresAt).toBeLessThanOrEqual(after + 24 * 3_600_000);
    const row = await api.deps.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect([row.secret, row.previousSecret]).toEqual([secret, first]);
    expect((await call(account, 'GET', `/${id}`)).body).not.toContain(secret);
  });
});
