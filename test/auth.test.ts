import { createSigner } from 'fast-jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, newAccountFields, registerAccount } from './support/accounts.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const register = (payload: unknown) =>
  api.app.inject({ method: 'POST', url: '/api/auth/register', payload: payload as object });
const login = (payload: unknown) =>
  api.app.inject({ method: 'POST', url: '/api/auth/login', payload: payload as object });
const me = (headers: Record<string, string>) =>
  api.app.inject({ method: 'GET', url: '/api/auth/me', headers });

describe('POST /api/auth/register', () => {
  it('creates an account, normalises email and handle, and returns a working token', async () => {
    const fields = newAccountFields(api);
    const response = await register({
      ...fields,
      email: `  ${fields.email.toUpperCase()} `,
      handle: fields.handle.toUpperCase(),
      name: `  ${fields.name}  `,
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body.account).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: fields.email,
      handle: fields.handle,
      name: fields.name,
      createdAt: expect.any(String),
    });
    expect(Object.keys(body.account).sort()).toEqual([
      'createdAt',
      'email',
      'handle',
      'id',
      'name',
    ]);
    const whoami = await me(bearer(body.token));
    expect(whoami.statusCode).toBe(200);
    expect(whoami.json().account.id).toBe(body.account.id);
  });

  it('stores an argon2id hash, never the password', async () => {
    const account = await registerAccount(api);
    const row = await api.deps.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.passwordHash).not.toContain(account.password);
  });

  it('refuses a taken email (any case) with 409 EMAIL_TAKEN', async () => {
    const account = await registerAccount(api);
    const response = await register({
      ...newAccountFields(api),
      email: account.email.toUpperCase(),
    });
    expectProblem(response, 409, 'EMAIL_TAKEN');
  });

  it('refuses a taken handle (any case) with 409 HANDLE_TAKEN', async () => {
    const account = await registerAccount(api);
    const response = await register({
      ...newAccountFields(api),
      handle: account.handle.toUpperCase(),
    });
    expectProblem(response, 409, 'HANDLE_TAKEN');
  });

  it('gives one of two concurrent registrations of one email a 409, never a 500', async () => {
    const fields = newAccountFields(api);
    const responses = await Promise.all([
      register(fields),
      register({ ...fields, handle: `${fields.handle}_b` }),
    ]);
    expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 409]);
  });

  it('lists every bad field once, with 400 VALIDATION_FAILED', async () => {
    const response = await register({
      email: 'not-an-email',
      password: 'short',
      handle: 'x!',
      name: '   ',
    });
    const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
    expect(problem.errors?.map((e) => e.path).sort()).toEqual([
      'email',
      'handle',
      'name',
      'password',
    ]);
  });

  it.each([
    ['handle too short', { handle: 'ab' }, 'handle'],
    ['handle too long', { handle: 'a'.repeat(31) }, 'handle'],
    ['handle with a hyphen', { handle: 'a-b-c' }, 'handle'],
    ['password of 7', { password: 'x'.repeat(7) }, 'password'],
    ['password of 257', { password: 'x'.repeat(257) }, 'password'],
    ['name of 101', { name: 'n'.repeat(101) }, 'name'],
    ['name with NUL', { name: 'a\u0000b' }, 'name'],
    ['missing email', { email: undefined }, 'email'],
    ['unknown field', { admin: true }, 'admin'],
  ])('refuses %s', async (_label, change, path) => {
    const response = await register({ ...newAccountFields(api), ...change });
    const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it('accepts the bounds: handle of 3 and 30, password of 8 and 256, name of 100', async () => {
    // A 3-character handle may already be someone's: it must not be refused as invalid.
    const short = await register({
      ...newAccountFields(api),
      handle: 'a_1',
      password: 'p'.repeat(8),
      name: 'n',
    });
    expect([201, 409]).toContain(short.statusCode);
    const fields = newAccountFields(api);
    const long = await register({
      ...fields,
      handle: fields.handle.padEnd(30, '_'),
      password: 'p'.repeat(256),
      name: 'n'.repeat(100),
    });
    expect(long.statusCode, long.body).toBe(201);
  });
});

describe('POST /api/auth/login', () => {
  it('returns a token and the account for the right password, with the email in any case', async () => {
    const account = await registerAccount(api);
    const response = await login({
      email: account.email.toUpperCase(),
      password: account.password,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().account.id).toBe(account.id);
    expect((await me(bearer(response.json().token))).statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown email with the same 401 INVALID_CREDENTIALS', async () => {
    const account = await registerAccount(api);
    const wrongPassword = await login({ email: account.email, password: `${account.password}x` });
    const unknownEmail = await login({
      email: `nobody@${api.tag}.test`,
      password: account.password,
    });
    const a = expectProblem(wrongPassword, 401, 'INVALID_CREDENTIALS');
    const b = expectProblem(unknownEmail, 401, 'INVALID_CREDENTIALS');
    expect(a.detail).toBe(b.detail);
  });

  it('takes about as long for an unknown email as for a wrong password', async () => {
    const account = await registerAccount(api);
    const time = async (email: string) => {
      const started = performance.now();
      await login({ email, password: 'wrong password' });
      return performance.now() - started;
    };
    const median = (values: number[]) =>
      values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    const known: number[] = [];
    const unknown: number[] = [];
    for (let round = 0; round < 7; round += 1) {
      known.push(await time(account.email));
      unknown.push(await time(`ghost-${round}@${api.tag}.test`));
    }
    // Both pay for one argon2id verification; without the decoy an unknown email would
    // answer in well under a tenth of the time.
    expect(median(unknown) / median(known)).toBeGreaterThan(0.5);
  });
});

describe('GET /api/auth/me and bearer tokens', () => {
  const sign = (payload: Record<string, unknown>, options: Record<string, unknown> = {}) =>
    createSigner({ key: api.deps.config.auth.jwtSecret, algorithm: 'HS256', ...options })(payload);

  it('refuses a request without a token', async () => {
    expectProblem(await me({}), 401, 'UNAUTHENTICATED');
  });

  it.each([
    ['malformed', () => 'not.a.jwt'],
    [
      'signed with another secret',
      () =>
        createSigner({ key: 'x'.repeat(40), iss: 'ingest', aud: 'ingest-api', expiresIn: 60_000 })({
          sub: 'x',
        }),
    ],
    [
      'expired',
      () =>
        sign({
          sub: '0',
          iss: 'ingest',
          aud: 'ingest-api',
          exp: Math.floor(Date.now() / 1000) - 10,
        }),
    ],
    ['without exp', () => sign({ sub: '0', iss: 'ingest', aud: 'ingest-api' })],
    [
      'for another audience',
      () => sign({ sub: '0', iss: 'ingest', aud: 'elsewhere' }, { expiresIn: 60_000 }),
    ],
    [
      'using alg none',
      () =>
        createSigner({ algorithm: 'none' })({
          sub: '0',
          iss: 'ingest',
          aud: 'ingest-api',
          exp: Math.floor(Date.now() / 1000) + 60,
        }),
    ],
    [
      'using HS512',
      () =>
        sign(
          { sub: '0', iss: 'ingest', aud: 'ingest-api' },
          { algorithm: 'HS512', expiresIn: 60_000 },
        ),
    ],
  ])('refuses a token %s with 401 UNAUTHENTICATED', async (_label, token) => {
    expectProblem(await me(bearer(token())), 401, 'UNAUTHENTICATED');
  });

  const validFor = (sub: string) =>
    sign({ sub, iss: 'ingest', aud: 'ingest-api' }, { expiresIn: 60_000 });

  it.each([
    ['GET', '/api/auth/me'],
    ['GET', '/api/webhooks/api-keys'],
    ['POST', '/api/webhooks/api-keys'],
    ['GET', '/api/webhooks/content'],
    ['GET', '/api/admin/queue'],
  ] as const)(
    'refuses a validly signed token whose sub is not an account id: %s %s',
    async (method, url) => {
      for (const sub of ['not-a-uuid', '1', '00000000-0000-0000-0000-00000000000g']) {
        const response = await api.app.inject({
          method,
          url,
          headers: bearer(validFor(sub)),
          ...(method === 'POST' ? { payload: { name: 'k', scopes: ['content:create'] } } : {}),
        });
        expectProblem(response, 401, 'UNAUTHENTICATED');
      }
    },
  );

  it('refuses an unexpired token once its account is deleted, creating nothing', async () => {
    const account = await registerAccount(api);
    await api.deps.db.prisma.account.delete({ where: { id: account.id } });
    for (const [method, url] of [
      ['GET', '/api/auth/me'],
      ['GET', '/api/webhooks/api-keys'],
      ['POST', '/api/webhooks/api-keys'],
      ['GET', '/api/admin/queue'],
    ] as const) {
      const response = await api.app.inject({
        method,
        url,
        headers: bearer(account.token),
        ...(method === 'POST' ? { payload: { name: 'k', scopes: ['content:create'] } } : {}),
      });
      const problem = expectProblem(response, 401, 'UNAUTHENTICATED');
      expect(problem.detail).toMatch(/no longer exists/);
    }
    expect(await api.deps.db.prisma.apiKey.count({ where: { accountId: account.id } })).toBe(0);
  });

  it('says an expired token has expired', async () => {
    const account = await registerAccount(api);
    const expired = sign({
      sub: account.id,
      iss: 'ingest',
      aud: 'ingest-api',
      exp: Math.floor(Date.now() / 1000) - 1,
    });
    const problem = expectProblem(await me(bearer(expired)), 401, 'UNAUTHENTICATED');
    expect(problem.detail).toMatch(/expired/);
  });

  it('issues tokens that expire after JWT_EXPIRES_IN_SECONDS', async () => {
    const account = await registerAccount(api);
    const [, payload] = account.token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<
      string,
      number | string
    >;
    expect(claims.sub).toBe(account.id);
    expect(Number(claims.exp) - Number(claims.iat)).toBe(api.deps.config.auth.jwtExpiresInSeconds);
  });
});

describe('routes that take a bearer token or an API key', () => {
  // A client generated from the document fills every scheme it lists, so it may send
  // both: the one that authenticates wins.
  it('answer whichever of the two authenticates', async () => {
    const account = await registerAccount(api);
    const { key } = await createKey(api, account);
    const goodKey = await me({ authorization: 'Bearer not.a.jwt', 'x-api-key': key });
    expect(goodKey.statusCode).toBe(200);
    expect(goodKey.json()).toMatchObject({ account: { id: account.id }, apiKey: {} });
    const goodToken = await me({ ...bearer(account.token), 'x-api-key': 'sk-nothing' });
    expect(goodToken.statusCode).toBe(200);
    expect(goodToken.json()).toEqual({ account: expect.objectContaining({ id: account.id }) });
  });

  it('say so for both when neither authenticates', async () => {
    const response = await me({ authorization: 'Bearer not.a.jwt', 'x-api-key': 'sk-nothing' });
    const problem = expectProblem(response, 401, 'UNAUTHENTICATED');
    expect(problem.detail).toMatch(/Neither the API key .* nor the bearer token/);
    expect(response.headers['www-authenticate']).toMatch(/ApiKey .*Bearer/);
  });
});
