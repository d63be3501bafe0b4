// POST /api/auth/login over generated attempts against a few accounts registered once:
// right and almost-right credentials, naughty ones, and bodies of every wrong shape. And
// regression properties for bugs they found.
import { AuthResponseSchema } from '@ingest/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccountFields } from '../support/accounts.js';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { loginBody, type Credentials } from './support/auth-arbitraries.js';
import { toJsonText } from './support/json-text.js';
import { mediaType } from './support/mutations.js';
import { loneSurrogate, naughtyString, unstorableChar } from './support/naughty-strings.js';
import { loginOutcomes, outcome } from './support/oracles.js';
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

/**
 * Passwords register accepts: plain, naughty, and one holding U+FFFD, which argon2 (it
 * hashes UTF-8) would take any lone surrogate in its place for.
 */
const PASSWORDS = ['correct horse battery', 'ﷺ 👨‍👩‍👧 \u202eZ̤͔ͧ 密码 ', '\ufffd-lone-surrogate'];

let api: TestApi;
const accounts: Credentials[] = [];
beforeAll(async () => {
  api = await startTestApi(PROPERTY_API_ENV);
  for (const password of PASSWORDS) {
    const fields = { ...newAccountFields(api), password };
    const answer = await api.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: fields,
    });
    expect(answer.statusCode, answer.body).toBe(201);
    accounts.push({ email: fields.email, password });
  }
});
afterAll(() => api.close());

const login = (body: unknown, type = 'application/json') =>
  postText(api, '/api/auth/login', toJsonText(body), type);

describe('POST /api/auth/login', () => {
  it(
    'answers every attempt as documented: 200 only for the right email and password',
    async () => {
      const attempts = fc.record({ body: loginBody(accounts), contentType: mediaType });
      const check = async ({ body, contentType }: { body: unknown; contentType: string }) => {
        const text = toJsonText(body);
        const answer = await login(body, contentType);
        const sent = { text, contentType, bodyLimit: api.deps.config.limits.authBodyBytes };
        expectOneOf(answer, loginOutcomes(sent, accounts));
        if (answer.statusCode === 200) {
          const { account } = AuthResponseSchema.parse(answer.json());
          expect(accounts.map((known) => known.email)).toContain(account.email);
        }
      };
      const property = fc.asyncProperty(batchesOf(attempts), (batch) => checkAll(batch, check));
      await fc.assert(property, batchedRuns(PROPERTY_RUNS));
    },
    timeoutFor(PROPERTY_RUNS),
  );
});

describe('regressions (bugs this suite found)', () => {
  // BUG 2: a login whose email held NUL was answered 500, because the login schema let
  // NUL through to a PostgreSQL query.
  it(
    'refuses a login whose email holds NUL or a lone surrogate with 400',
    async () => {
      const emails = fc
        .tuple(
          fc.oneof(naughtyString, fc.constantFrom(...accounts.map((account) => account.email))),
          unstorableChar,
          fc.nat(),
        )
        .map(([text, char, at]) => {
          const kept = text.slice(0, 200);
          const i = at % (kept.length + 1);
          return `${kept.slice(0, i)}${char}${kept.slice(i)}`;
        })
        .filter((email) => email.includes('\u0000') || !email.isWellFormed());
      const property = fc.asyncProperty(emails, async (email) => {
        const answer = await login({ email, password: PASSWORDS[0] });
        const { problem } = expectOneOf(answer, [outcome(400, 'VALIDATION_FAILED')]);
        expect(problem?.errors?.map((error) => error.path)).toEqual(['email']);
      });
      await fc.assert(property, { numRuns: REGRESSION_RUNS });
    },
    timeoutFor(REGRESSION_RUNS),
  );

  // BUG 3: a password with a lone surrogate matched the one with U+FFFD in its place
  // (200, not 401), because argon2 hashes the UTF-8 encoding, which makes that swap.
  it(
    'refuses a password that differs from the registered one only in a lone surrogate for its U+FFFD',
    async () => {
      const account = accounts.find(({ password }) => password.includes('\ufffd')) as Credentials;
      expectOneOf(await login(account), [outcome(200)]);
      const aliases = loneSurrogate.map((unit) => account.password.replace('\ufffd', unit));
      const property = fc.asyncProperty(aliases, async (password) => {
        const answer = await login({ email: account.email, password });
        expectOneOf(answer, [outcome(401, 'INVALID_CREDENTIALS')]);
      });
      await fc.assert(property, { numRuns: REGRESSION_RUNS });
    },
    timeoutFor(REGRESSION_RUNS),
  );
});
