// POST /api/webhooks/api-keys over generated inputs, with the account's bearer token,
// without one, or with a forged one. And a regression property for a bug they found.
import { ApiKeyCreateRequestSchema } from '@ingest/events';
import { ApiKeyCreatedSchema, ApiKeyListSchema } from '@ingest/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerAccount, type RegisteredAccount } from '../support/accounts.js';
import { startTestApi, type TestApi } from '../support/test-api.js';
import {
  apiKeyBody,
  bearerChoice,
  lastSecondOf9999,
  type BearerChoice,
} from './support/api-key-arbitraries.js';
import { toJsonText } from './support/json-text.js';
import { mediaType } from './support/mutations.js';
import { apiKeyOutcomes, outcome } from './support/oracles.js';
import {
  batchedRuns,
  batchesOf,
  checkAll,
  PROPERTY_API_ENV,
  PROPERTY_RUNS,
  REGRESSION_RUNS,
  timeoutFor,
} from './support/property-runs.js';
import { postText } from './support/raw-requests.js';
import { expectOneOf } from './support/response-checks.js';

let api: TestApi;
let account: RegisteredAccount;
beforeAll(async () => {
  // A quota the valid keys of one run cannot reach: this property is about input, and
  // the quota has tests of its own.
  api = await startTestApi({ ...PROPERTY_API_ENV, API_KEY_QUOTA: '10000' });
  account = await registerAccount(api);
});
afterAll(() => api.close());

const authorization = (choice: BearerChoice): Record<string, string> => {
  if (choice.kind === 'valid') return bearer(account.token);
  return choice.kind === 'none' ? {} : { authorization: choice.value };
};

describe('POST /api/webhooks/api-keys', () => {
  it(
    'answers every key request as documented, and a created key is what was asked for',
    async () => {
      const requests = fc.record({
        body: apiKeyBody(Date.now()),
        bearer: bearerChoice,
        contentType: mediaType,
      });
      type KeyRequest = { body: unknown; bearer: BearerChoice; contentType: string };
      const check = async ({ body, bearer: choice, contentType }: KeyRequest) => {
        const text = toJsonText(body);
        const answer = await postText(
          api,
          '/api/webhooks/api-keys',
          text,
          contentType,
          authorization(choice),
        );
        const sent = { text, contentType, bodyLimit: api.deps.config.limits.authBodyBytes };
        expectOneOf(answer, apiKeyOutcomes(sent, choice.kind === 'valid'));
        if (answer.statusCode !== 201) return;

        const created = ApiKeyCreatedSchema.parse(answer.json());
        const asked = ApiKeyCreateRequestSchema.parse(JSON.parse(text));
        expect(created).toMatchObject({
          name: asked.name,
          scopes: asked.scopes,
          expiresAt: asked.expiresAt === undefined ? null : new Date(asked.expiresAt).toISOString(),
        });
        expect(created.key.startsWith(created.prefix)).toBe(true);
      };
      const property = fc.asyncProperty(batchesOf(requests), (batch) => checkAll(batch, check));
      await fc.assert(property, batchedRuns(PROPERTY_RUNS));
    },
    timeoutFor(PROPERTY_RUNS),
  );
});

describe('regressions (bugs this suite found)', () => {
  // BUG 5: an expiry past 9999 in UTC (a four-digit year with an offset) was answered 500,
  // and the key stored anyway, which broke the account's key list. An account of its own.
  it(
    'refuses a key expiring in the last hours of 9999 (local time) but in 10000 (UTC), and stores none',
    async () => {
      const owner = await registerAccount(api);
      const created: string[] = [];
      const property = fc.asyncProperty(lastSecondOf9999('+', '-'), async (expiresAt) => {
        const body = { name: 'far future', scopes: ['content:create'], expiresAt };
        const answer = await postText(
          api,
          '/api/webhooks/api-keys',
          toJsonText(body),
          'application/json',
          bearer(owner.token),
        );
        // With `+` the instant is still in 9999 (UTC); with `-` it is in 10000.
        if (expiresAt.includes('+')) {
          expectOneOf(answer, [outcome(201)]);
          const key = ApiKeyCreatedSchema.parse(answer.json());
          expect(key.expiresAt).toBe(new Date(expiresAt).toISOString());
          expect(key.expiresAt).toMatch(/^9999-12-31T/);
          created.push(key.id);
        } else {
          const { problem } = expectOneOf(answer, [outcome(400, 'VALIDATION_FAILED')]);
          expect(problem?.errors?.map((error) => error.path)).toEqual(['expiresAt']);
        }
      });
      await fc.assert(property, { numRuns: REGRESSION_RUNS });

      // The account's keys are the accepted ones, and can all be listed.
      const list = await api.app.inject({
        method: 'GET',
        url: '/api/webhooks/api-keys',
        headers: bearer(owner.token),
      });
      expect(list.statusCode, list.body).toBe(200);
      const { items } = ApiKeyListSchema.parse(list.json());
      expect(items.map((item) => item.id).sort()).toEqual([...created].sort());
    },
    timeoutFor(REGRESSION_RUNS),
  );
});
