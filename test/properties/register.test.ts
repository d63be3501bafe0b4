// POST /api/auth/register over generated inputs, mostly invalid: a valid one costs an
// argon2id hash (about 18 ms), an invalid one almost nothing. And a regression property
// for a bug they found.
import { AuthResponseSchema, RegisterRequestSchema } from '@ingest/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccountFields } from '../support/accounts.js';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { loneSurrogatePassword, registrationBody } from './support/auth-arbitraries.js';
import { toJsonText } from './support/json-text.js';
import { mediaType } from './support/mutations.js';
import { outcome, registerOutcomes } from './support/oracles.js';
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
/** Every account made, in case one escaped the test domain that close() cleans up. */
const created: string[] = [];
beforeAll(async () => {
  api = await startTestApi(PROPERTY_API_ENV);
});
afterAll(async () => {
  await api.deps.db.prisma.account.deleteMany({ where: { id: { in: created } } });
  await api.close();
});

describe('POST /api/auth/register', () => {
  it(
    'answers every registration as documented, and a created account is what was sent',
    async () => {
      const requests = fc.record({ body: registrationBody(api.tag), contentType: mediaType });
      const check = async ({ body, contentType }: { body: unknown; contentType: string }) => {
        const text = toJsonText(body);
        const answer = await postText(api, '/api/auth/register', text, contentType);
        const sent = { text, contentType, bodyLimit: api.deps.config.limits.authBodyBytes };
        expectOneOf(answer, registerOutcomes(sent));
        if (answer.statusCode !== 201) return;

        const { account } = AuthResponseSchema.parse(answer.json());
        created.push(account.id);
        // Stored as the contract normalises it: email and handle trimmed and lower-cased,
        // name trimmed.
        const fields = RegisterRequestSchema.parse(JSON.parse(text));
        expect(account).toMatchObject({
          email: fields.email,
          handle: fields.handle,
          name: fields.name,
        });
      };
      const property = fc.asyncProperty(batchesOf(requests), (batch) => checkAll(batch, check));
      await fc.assert(property, batchedRuns(PROPERTY_RUNS));
    },
    timeoutFor(PROPERTY_RUNS),
  );
});

describe('regressions (bugs this suite found)', () => {
  // BUG 3: a password with a lone surrogate was accepted, and then matched the password
  // with U+FFFD in its place (argon2 hashes UTF-8): register now refuses it.
  it(
    'refuses a password holding a lone surrogate with 400, naming the password',
    async () => {
      const property = fc.asyncProperty(loneSurrogatePassword, async (password) => {
        const body = { ...newAccountFields(api), password };
        const answer = await postText(
          api,
          '/api/auth/register',
          toJsonText(body),
          'application/json',
        );
        const { problem } = expectOneOf(answer, [outcome(400, 'VALIDATION_FAILED')]);
        expect(problem?.errors?.map((error) => error.path)).toEqual(['password']);
      });
      await fc.assert(property, { numRuns: REGRESSION_RUNS });
    },
    timeoutFor(REGRESSION_RUNS),
  );
});
