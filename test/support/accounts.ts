import { randomBytes } from 'node:crypto';
import type { TestApi } from './test-api.js';

export interface RegisteredAccount {
  id: string;
  email: string;
  handle: string;
  password: string;
  token: string;
}

/** Fresh, valid registration fields in this API's test domain. */
export function newAccountFields(api: TestApi) {
  const suffix = randomBytes(5).toString('hex');
  return {
    email: `user-${suffix}@${api.tag}.test`,
    password: `pw-${randomBytes(12).toString('base64url')}`,
    handle: `u_${suffix}`,
    name: `User ${suffix}`,
  };
}

export async function registerAccount(api: TestApi): Promise<RegisteredAccount> {
  const fields = newAccountFields(api);
  const response = await api.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: fields,
  });
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.body}`);
  const body = response.json<{ account: { id: string }; token: string }>();
  return { id: body.account.id, ...fields, token: body.token };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function createKey(
  api: TestApi,
  account: RegisteredAccount,
  body: Record<string, unknown> = { name: 'bot', scopes: ['content:create'] },
): Promise<{ id: string; key: string }> {
  const response = await api.app.inject({
    method: 'POST',
    url: '/api/webhooks/api-keys',
    headers: bearer(account.token),
    payload: body,
  });
  if (response.statusCode !== 201) throw new Error(`key creation failed: ${response.body}`);
  return response.json<{ id: string; key: string }>();
}
