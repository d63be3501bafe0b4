import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, createKey, registerAccount } from './support/accounts.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
beforeAll(async () => {
  // Debug level: the most the service ever logs.
  api = await startTestApi({ LOG_LEVEL: 'trace' });
});
afterAll(() => api.close());

it('never writes a password, token, API key or the JWT secret to the log', async () => {
  const account = await registerAccount(api);
  const { key } = await createKey(api, account);
  const inject = api.app.inject.bind(api.app);
  await inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: account.email, password: account.password },
  });
  await inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: account.email, password: `${account.password}!` },
  });
  await inject({ method: 'GET', url: '/api/auth/me', headers: bearer(account.token) });
  await inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': key } });
  await inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': `${key}x` } });
  // Credentials in query strings: no route takes them, but a client may send them anyway.
  const query = new URLSearchParams({
    key,
    api_key: key,
    Token: account.token,
    access_token: account.token,
    secret: api.deps.config.auth.jwtSecret,
    PASSWORD: account.password,
    page: '2',
  });
  await inject({ method: 'GET', url: `/api/nothing?${query.toString()}` });
  await inject({
    method: 'GET',
    url: `/api/auth/me?api_key=${key}`,
    headers: { 'x-api-key': key },
  });

  const log = api.logLines.join('\n');
  expect(api.logLines.length).toBeGreaterThan(10);
  for (const secret of [
    account.password,
    account.token,
    key,
    key.slice(3, 30),
    api.deps.config.auth.jwtSecret,
  ]) {
    expect(log).not.toContain(secret);
    // As a query string carries it: the JWT secret is base64, with `+`, `/` and `=`.
    expect(log).not.toContain(new URLSearchParams({ secret }).toString().slice('secret='.length));
  }
  // The lines are still useful: each request is there with its id and outcome.
  expect(log).toContain('"statusCode":401');
  expect(log).toContain('"url":"/api/auth/me"');
  // URLs are logged, with only the credentials' values taken out.
  expect(log).toContain(
    '"url":"/api/nothing?key=[redacted]&api_key=[redacted]&Token=[redacted]' +
      '&access_token=[redacted]&secret=[redacted]&PASSWORD=[redacted]&page=2"',
  );
  expect(log).toContain('"url":"/api/auth/me?api_key=[redacted]"');
});
