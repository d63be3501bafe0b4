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
  await inject({
    method: 'GET',
    url: `/api/nothing?key=${key}`.slice(0, 0) || '/api/nothing',
    headers: { authorization: `Bearer ${account.token}` },
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
  }
  // The lines are still useful: each request is there with its id and outcome.
  expect(log).toContain('"statusCode":401');
  expect(log).toContain('"url":"/api/auth/me"');
});
