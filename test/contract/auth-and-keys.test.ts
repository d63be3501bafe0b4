// Accounts and API keys, fuzzed and held to the document: registration and login bodies
// near the valid ones (the property suite's generators), every kind of bearer token and
// key on /me, key creation, listing, signing settings, secret rotation and revocation.
import fc from 'fast-check';
import { afterAll, beforeAll, describe } from 'vitest';
import { apiKeyBody } from '../properties/support/api-key-arbitraries.js';
import { loginBody, registrationBody } from '../properties/support/auth-arbitraries.js';
import { createKey, registerAccount } from '../support/accounts.js';
import { fuzzEachOperation } from './support/each-operation.js';
import { FuzzRequest } from './support/requests.js';
import type { OperationProfile } from './support/operation-requests.js';
import { startContract, type ContractSetup } from './support/setup.js';

let setup: ContractSetup;
const profiles: Record<string, OperationProfile> = {};

beforeAll(async () => {
  // Key creation succeeds through the whole run: the quota has tests of its own.
  setup = await startContract({ API_KEY_QUOTA: '10000' });
  const { api, credentials } = setup;
  const { publisher, other, admin } = credentials;
  // Keys that revocation may take: never the ones requests authenticate with.
  const revocable = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      createKey(api, publisher, { name: `revocable ${i}`, scopes: ['content:read'] }),
    ),
  );
  const others = await createKey(api, other, { name: 'not yours', scopes: ['content:read'] });
  // Keys whose signing settings and secrets the run may change: none that authenticates.
  const adjustable = await Promise.all(
    Array.from({ length: 4 }, (_, i) =>
      createKey(api, publisher, { name: `adjustable ${i}`, scopes: ['content:read'] }),
    ),
  );
  const adjustableIds = fc.constantFrom(...adjustable.map((key) => key.id), others.id);

  profiles['POST /api/auth/register'] = { body: registrationBody(api.tag) };
  profiles['POST /api/auth/login'] = { body: loginBody([publisher, other, admin]) };
  // Never the password of this file's accounts, which an erasure would end: the right
  // password goes only with the token of an account made to be erased.
  const doomed = await registerAccount(api);
  const ERASE_DOOMED = 'erase the account made to be erased';
  profiles['POST /api/auth/me/erasure'] = {
    body: fc.oneof(
      fc.record({ password: fc.string({ minLength: 1, maxLength: 300 }) }),
      fc.constant({ password: ERASE_DOOMED }),
    ),
    adjust: (request) =>
      typeof request.body === 'string' && request.body.includes(ERASE_DOOMED)
        ? new FuzzRequest(
            request.method,
            request.path,
            request.query,
            { ...request.headers, authorization: `Bearer ${doomed.token}` },
            request.body.replace(ERASE_DOOMED, doomed.password),
          )
        : request,
  };
  profiles['POST /api/webhooks/api-keys'] = { body: apiKeyBody(Date.now()) };
  profiles['PATCH /api/webhooks/api-keys/{id}'] = {
    pathValues: { id: adjustableIds },
    body: fc.record({ requireSignature: fc.boolean() }),
  };
  profiles['POST /api/webhooks/api-keys/{id}/signing-secret'] = {
    pathValues: { id: adjustableIds },
  };
  profiles['DELETE /api/webhooks/api-keys/{id}'] = {
    pathValues: { id: fc.constantFrom(...revocable.map((key) => key.id), others.id) },
  };
});

afterAll(() => setup?.api.close());

describe('accounts and API keys answer as the document says', () => {
  fuzzEachOperation('auth-and-keys', () => setup, profiles);
});
