import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccountFields, registerAccount } from './support/accounts.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({
    RATE_LIMIT_REGISTER_PER_IP_PER_HOUR: '3',
    RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '8',
    RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE: '3',
  });
});
afterAll(() => api.close());

const fromIp = (ip: string) => ({ remoteAddress: ip });

describe('rate limits on /api/auth', () => {
  it('limits registrations per IP, answering 429 RATE_LIMITED with Retry-After', async () => {
    const responses = [];
    for (let i = 0; i < 4; i += 1) {
      responses.push(
        await api.app.inject({
          method: 'POST',
          url: '/api/auth/register',
          payload: newAccountFields(api),
          ...fromIp('203.0.113.7'),
        }),
      );
    }
    expect(responses.map((r) => r.statusCode)).toEqual([201, 201, 201, 429]);
    const refused = responses[3]!;
    expectProblem(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-limit']).toBe('3');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    // Another address is counted on its own.
    const elsewhere = await api.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: newAccountFields(api),
      ...fromIp('203.0.113.8'),
    });
    expect(elsewhere.statusCode).toBe(201);
  });

  it('limits logins per email whatever the address, and per address whatever the email', async () => {
    const account = await registerAccount(api);
    const attempt = (ip: string, email = account.email) =>
      api.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password: 'wrong password' },
        ...fromIp(ip),
      });
    const perEmail = [];
    for (let i = 0; i < 4; i += 1) perEmail.push((await attempt(`198.51.100.${i + 1}`)).statusCode);
    expect(perEmail).toEqual([401, 401, 401, 429]);
    // The email's limit also holds when it is written in another case.
    expectProblem(await attempt('198.51.100.99', account.email.toUpperCase()), 429, 'RATE_LIMITED');

    const perIp = [];
    for (let i = 0; i < 9; i += 1)
      perIp.push((await attempt('192.0.2.1', `nobody${i}@${api.tag}.test`)).statusCode);
    expect(perIp.slice(0, 8).every((status) => status === 401)).toBe(true);
    expect(perIp[8]).toBe(429);
  });

  it('reports the remaining allowance on requests that pass', async () => {
    const response = await api.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: newAccountFields(api),
      ...fromIp('203.0.113.50'),
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers['ratelimit-limit']).toBe('3');
    expect(response.headers['ratelimit-remaining']).toBe('2');
  });
});
