import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import { createKey, registerAccount } from './accounts.js';
import { registerAdmin } from './admin.js';
import type { TestApi } from './test-api.js';

export interface Credentials {
  /** An API key this API has not seen yet: its lookup must reach the database. */
  key: string;
  token: string;
  adminToken: string;
  email: string;
  password: string;
}

/**
 * One request down each way the API authenticates a caller: an API key, a signed request,
 * a bearer token, a key and a token together, an operator's token and session cookie, and
 * a login. Each needs the database; the signature's headers are sent but cannot be checked
 * before the key is read.
 */
async function everyAuthenticationPath(api: TestApi, who: Credentials) {
  const publish = { event: 'article.delete', data: { slug: 'never-applied' } };
  const calls: Record<string, InjectOptions> = {
    'API key': {
      method: 'POST',
      url: '/api/webhooks/content',
      headers: { 'x-api-key': who.key },
      payload: publish,
    },
    'signed request': {
      method: 'POST',
      url: '/api/webhooks/content',
      headers: {
        'x-api-key': who.key,
        'webhook-id': 'msg_auth_paths',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,c2lnbmF0dXJlIHRoYXQgY2Fubm90IGJlIGNoZWNrZWQ=',
      },
      payload: publish,
    },
    'bearer token': {
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${who.token}` },
    },
    'key and token': {
      method: 'GET',
      url: '/api/auth/me',
      headers: { 'x-api-key': who.key, authorization: `Bearer ${who.token}` },
    },
    'operator token': {
      method: 'GET',
      url: '/api/admin/events?limit=1',
      headers: { authorization: `Bearer ${who.adminToken}` },
    },
    'operator session cookie': {
      method: 'GET',
      url: '/api/admin/events?limit=1',
      headers: { cookie: `ingest_admin=${who.adminToken}` },
    },
    login: {
      method: 'POST',
      url: '/api/auth/login',
      headers: {},
      payload: { email: who.email, password: who.password },
    },
  };
  const answers = await Promise.all(
    Object.entries(calls).map(async ([path, call]) => {
      const response = await api.app.inject(call);
      const { code } = response.json<{ code?: string }>();
      return {
        path,
        status: response.statusCode,
        code,
        retryAfter: response.headers['retry-after'],
      };
    }),
  );
  return answers;
}

/** A publisher's token and password, an API key no API has used yet, an operator's token. */
export async function freshCredentials(api: TestApi): Promise<Credentials> {
  const account = await registerAccount(api);
  const admin = await registerAdmin(api);
  const { key } = await createKey(api, account);
  return {
    key,
    token: account.token,
    adminToken: admin.token,
    email: account.email,
    password: account.password,
  };
}

/**
 * Every way in answers 503 UNAVAILABLE with Retry-After, never 401: credentials that
 * cannot be checked are not wrong, and a 401 would tell publishers to change keys that
 * are fine while the database is away.
 */
export async function expectEveryAuthenticationPathUnavailable(api: TestApi, who: Credentials) {
  const answers = await everyAuthenticationPath(api, who);
  expect(answers.map(({ path, status, code }) => ({ path, status, code }))).toEqual(
    answers.map(({ path }) => ({ path, status: 503, code: 'UNAVAILABLE' })),
  );
  for (const answer of answers) expect(answer.retryAfter, answer.path).toBe('5');
}
