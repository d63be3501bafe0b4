// Accounts and API keys made over HTTP, as a publisher makes them, through whichever
// ApiClient the caller has: the same requests for in-process tests, the fault suite and
// the bench.
import { randomBytes } from 'node:crypto';
import type { ApiClient, ApiRequest } from './api-client.js';

export interface AccountFields {
  email: string;
  password: string;
  handle: string;
  name: string;
}

export interface RegisteredAccount extends AccountFields {
  id: string;
  /** The bearer token registration answered with. */
  token: string;
}

export interface CreatedApiKey {
  id: string;
  key: string;
  /** The key's Standard Webhooks signing secret (`whsec_...`). */
  signingSecret: string;
}

export interface PublisherAccount extends RegisteredAccount {
  /** Keys that may publish (`content:create`), in the order they were made. */
  apiKeys: string[];
}

const PUBLISHING_SCOPES = ['content:create'];

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * Fresh, valid registration fields. The email domain says whose account it is (a test
 * API deletes its own domain's accounts when it closes); `prefix` starts the email and
 * the handle, so it must be a valid handle: a-z, 0-9 and _.
 */
export function newAccountFields(emailDomain: string, prefix = 'user'): AccountFields {
  const suffix = randomBytes(5).toString('hex');
  return {
    email: `${prefix}-${suffix}@${emailDomain}`,
    password: `pw-${randomBytes(12).toString('base64url')}`,
    handle: `${prefix}_${suffix}`,
    name: `${prefix} ${suffix}`,
  };
}

/** Sends `request`, and throws unless it is answered with `expected`; returns its JSON body. */
async function expectJson<Body>(
  client: ApiClient,
  expected: number,
  request: ApiRequest,
): Promise<Body> {
  const response = await client(request);
  if (response.status !== expected) {
    throw new Error(
      `${request.method} ${request.path}: ${response.status} ${response.text.slice(0, 300)}`,
    );
  }
  return JSON.parse(response.text) as Body;
}

export async function registerAccount(
  client: ApiClient,
  fields: AccountFields,
): Promise<RegisteredAccount> {
  const body = await expectJson<{ account: { id: string }; token: string }>(client, 201, {
    method: 'POST',
    path: '/api/auth/register',
    body: fields,
  });
  return { ...fields, id: body.account.id, token: body.token };
}

/** Logs in with email and password; returns the new bearer token. */
export async function logIn(
  client: ApiClient,
  credentials: { email: string; password: string },
): Promise<string> {
  const body = await expectJson<{ token: string }>(client, 200, {
    method: 'POST',
    path: '/api/auth/login',
    body: { email: credentials.email, password: credentials.password },
  });
  return body.token;
}

/** Creates an API key with the account's bearer token; by default one that may publish. */
export function createApiKey(
  client: ApiClient,
  token: string,
  body: Record<string, unknown> = { name: 'bot', scopes: PUBLISHING_SCOPES },
): Promise<CreatedApiKey> {
  return expectJson<CreatedApiKey>(client, 201, {
    method: 'POST',
    path: '/api/webhooks/api-keys',
    headers: bearer(token),
    body,
  });
}

/** Registers an account and gives it `keys` API keys that may publish. */
export async function createPublisher(
  client: ApiClient,
  fields: AccountFields,
  keys: number,
): Promise<PublisherAccount> {
  const account = await registerAccount(client, fields);
  const apiKeys: string[] = [];
  for (let i = 1; i <= keys; i += 1) {
    const body = { name: `key-${i}`, scopes: PUBLISHING_SCOPES };
    apiKeys.push((await createApiKey(client, account.token, body)).key);
  }
  return { ...account, apiKeys };
}
