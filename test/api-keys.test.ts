import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ API_KEY_QUOTA: '3' });
});
afterAll(() => api.close());

const createKeyRequest = (account: RegisteredAccount, payload: unknown) =>
  api.app.inject({
    method: 'POST',
    url: '/api/webhooks/api-keys',
    headers: bearer(account.token),
    payload: payload as object,
  });
const listKeys = (account: RegisteredAccount) =>
  api.app.inject({ method: 'GET', url: '/api/webhooks/api-keys', headers: bearer(account.token) });
const revokeKey = (account: RegisteredAccount, id: string) =>
  api.app.inject({
    method: 'DELETE',
    url: `/api/webhooks/api-keys/${id}`,
    headers: bearer(account.token),
  });
const meWithKey = (key: string) =>
  api.app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': key } });

describe('POST /api/webhooks/api-keys', () => {
  it('creates a key shown once, with folded scopes and a display prefix', async () => {
    const account = await registerAccount(api);
    const response = await createKeyRequest(account, {
      name: '  publisher bot ',
      scopes: ['content:create', 'content:read', 'content:create'],
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      id: expect.any(String),
      name: 'publisher bot',
      scopes: ['content:create', 'content:read'],
      key: expect.stringMatching(/^sk-[0-9A-Za-z]{49}$/),
      prefix: body.key.slice(0, 11),
      createdAt: expect.any(String),
      expiresAt: null,
      requireSignature: false,
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const whoami = await meWithKey(body.key);
    expect(whoami.statusCode).toBe(200);
    expect(whoami.json()).toMatchObject({ account: { id: account.id }, apiKey: { id: body.id } });
  });

  it('stores only the SHA-256 of the key', async () => {
    const account = await registerAccount(api);
    const { id, key } = await createKey(api, account);
    const row = await api.deps.db.prisma.apiKey.findUniqueOrThrow({ where: { id } });
    expect(Buffer.from(row.keyHash).equals(createHash('sha256').update(key).digest())).toBe(true);
    const rowText = JSON.stringify(row, (_k, v: unknown) =>
      v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
    );
    expect(rowText).not.toContain(key.slice(3));
  });

  it('refuses unknown scopes, listing the valid ones', async () => {
    const account = await registerAccount(api);
    const problem = expectProblem(
      await createKeyRequest(account, {
        name: 'x',
        scopes: ['content:create', 'admin:everything'],
      }),
      400,
      'VALIDATION_FAILED',
    );
    expect(problem.errors).toEqual([
      {
        path: 'scopes.1',
        message: expect.stringContaining('content:create, content:read, article:create'),
      },
    ]);
  });

  it.each([
    ['no scopes', { name: 'x', scopes: [] }, 'scopes'],
    ['no name', { scopes: ['content:create'] }, 'name'],
    ['a blank name', { name: '   ', scopes: ['content:create'] }, 'name'],
    [
      'an expiry in the past',
      { name: 'x', scopes: ['content:read'], expiresAt: '2020-01-01T00:00:00Z' },
      'expiresAt',
    ],
    [
      'an expiry that is not a date',
      { name: 'x', scopes: ['content:read'], expiresAt: 'tomorrow' },
      'expiresAt',
    ],
  ])('refuses %s', async (_label, payload, path) => {
    const account = await registerAccount(api);
    const problem = expectProblem(
      await createKeyRequest(account, payload),
      400,
      'VALIDATION_FAILED',
    );
    expect(problem.errors?.map((e) => e.path)).toEqual([path]);
  });

  it('requires a bearer token, and an API key is not one', async () => {
    const account = await registerAccount(api);
    const { key } = await createKey(api, account);
    expectProblem(
      await api.app.inject({
        method: 'POST',
        url: '/api/webhooks/api-keys',
        payload: { name: 'x', scopes: ['content:read'] },
      }),
      401,
      'UNAUTHENTICATED',
    );
    expectProblem(
      await api.app.inject({
        method: 'GET',
        url: '/api/webhooks/api-keys',
        headers: { 'x-api-key': key },
      }),
      401,
      'UNAUTHENTICATED',
    );
  });

  it('enforces the quota of active keys with 409 KEY_QUOTA_EXCEEDED, counting concurrent requests', async () => {
    const account = await registerAccount(api);
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        createKeyRequest(account, { name: `k${i}`, scopes: ['content:read'] }),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(3);
    for (const refused of responses.filter((r) => r.statusCode !== 201)) {
      expectProblem(refused, 409, 'KEY_QUOTA_EXCEEDED');
    }
    // A revoked key frees its place.
    const first = responses.find((r) => r.statusCode === 201)!.json<{ id: string }>();
    expect((await revokeKey(account, first.id)).statusCode).toBe(204);
    expect(
      (await createKeyRequest(account, { name: 'again', scopes: ['content:read'] })).statusCode,
    ).toBe(201);
  });
});

describe('GET /api/webhooks/api-keys', () => {
  it("lists only the caller's keys, newest first, without secrets or hashes", async () => {
    const account = await registerAccount(api);
    const other = await registerAccount(api);
    const older = await createKey(api, account, { name: 'older', scopes: ['content:read'] });
    const newer = await createKey(api, account, { name: 'newer', scopes: ['article:create'] });
    await createKey(api, other);
    const response = await listKeys(account);
    expect(response.statusCode).toBe(200);
    const { items } = response.json<{ items: Array<Record<string, unknown>> }>();
    expect(items.map((k) => k.id)).toEqual([newer.id, older.id]);
    expect(Object.keys(items[0]!).sort()).toEqual(
      [
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'name',
        'prefix',
        'requireSignature',
        'revokedAt',
        'scopes',
      ].sort(),
    );
    expect(response.body).not.toContain(newer.key);
    expect(response.body).not.toContain(older.key);
  });

  it('records when a key was last used', async () => {
    const account = await registerAccount(api);
    const { id, key } = await createKey(api, account);
    expect((await meWithKey(key)).statusCode).toBe(200);
    await expect
      .poll(
        async () =>
          (await api.deps.db.prisma.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt,
      )
      .not.toBeNull();
  });
});

describe('DELETE /api/webhooks/api-keys/:id', () => {
  it('revokes a key, which stops working at once and shows revokedAt', async () => {
    const account = await registerAccount(api);
    const { id, key } = await createKey(api, account);
    expect((await meWithKey(key)).statusCode).toBe(200);
    expect((await revokeKey(account, id)).statusCode).toBe(204);
    expectProblem(await meWithKey(key), 401, 'UNAUTHENTICATED');
    const listed = (await listKeys(account)).json<{
      items: Array<{ id: string; revokedAt: string | null }>;
    }>();
    expect(listed.items.find((k) => k.id === id)?.revokedAt).not.toBeNull();
    expect((await revokeKey(account, id)).statusCode).toBe(204); // idempotent
  });

  it("answers another account's key id, and an unknown one, with 404", async () => {
    const owner = await registerAccount(api);
    const stranger = await registerAccount(api);
    const { id, key } = await createKey(api, owner);
    expectProblem(await revokeKey(stranger, id), 404, 'NOT_FOUND');
    expectProblem(
      await revokeKey(stranger, '0190a5b2-0000-7000-8000-000000000000'),
      404,
      'NOT_FOUND',
    );
    expect((await meWithKey(key)).statusCode).toBe(200); // untouched
  });

  it('refuses an id that is not a UUID with 400', async () => {
    const account = await registerAccount(api);
    expectProblem(await revokeKey(account, 'nope'), 400, 'VALIDATION_FAILED');
  });
});

describe('x-api-key authentication', () => {
  it('refuses a key once it has expired, even while it is cached', async () => {
    const account = await registerAccount(api);
    const expiresAt = new Date(Date.now() + 1_500);
    const { key } = await createKey(api, account, {
      name: 'x',
      scopes: ['content:create'],
      expiresAt: expiresAt.toISOString(),
    });
    expect((await meWithKey(key)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 10));
    expectProblem(await meWithKey(key), 401, 'UNAUTHENTICATED');
  });

  it('refuses malformed, mistyped and unknown keys alike', async () => {
    const account = await registerAccount(api);
    const { key } = await createKey(api, account);
    const mistyped = key.slice(0, 10) + (key[10] === 'A' ? 'B' : 'A') + key.slice(11);
    const unknown = (await createKey(api, account)).key;
    await api.deps.db.prisma.apiKey.deleteMany({ where: { prefix: unknown.slice(0, 11) } });
    const details = new Set<string>();
    for (const bad of ['', 'sk-short', mistyped, unknown]) {
      details.add(expectProblem(await meWithKey(bad), 401, 'UNAUTHENTICATED').detail);
    }
    expect(details.size).toBe(1);
  });
});
