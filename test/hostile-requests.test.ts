// Inputs that used to reach PostgreSQL or the file system and come back as 500s: NUL and
// lone surrogates in query filters, years PostgreSQL cannot hold, JSON nested past any
// parser's patience, and asset paths that are not file names. Each is the caller's
// mistake, so each is a 4xx in the problem shape, naming what is wrong.
import { get as httpGet } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
let admin: RegisteredAccount;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  admin = await registerAdmin(api);
  ({ key } = await createKey(api, await registerAccount(api), {
    name: 'reader',
    scopes: ['content:create'],
  }));
});
afterAll(() => api.close());

const query = (filters: Record<string, string>) => new URLSearchParams(filters).toString();
const deeplyNested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const expectRefusedNaming = async (
  response: Awaited<ReturnType<typeof api.app.inject>>,
  path: string,
) => {
  const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
  expect(problem.errors?.map((error) => error.path)).toContain(path);
};

describe('query filters PostgreSQL cannot take', () => {
  it.each([
    ['/api/articles', 'category NUL', { category: '\u0000' }, 'query.category'],
    ['/api/articles', 'author NUL', { author: '\u0000' }, 'query.author'],
    ['/api/articles', 'cursor NUL', { cursor: '\u0000' }, 'query.cursor'],
  ])('are refused on public reads: %s, %s', async (url, _label, filters, path) => {
    await expectRefusedNaming(
      await api.app.inject({ method: 'GET', url: `${url}?${query(filters)}` }),
      path,
    );
  });

  it('are refused on receipts', async () => {
    await expectRefusedNaming(
      await api.app.inject({
        method: 'GET',
        url: `/api/webhooks/content?${query({ event: '\u0000' })}`,
        headers: { 'x-api-key': key },
      }),
      'query.event',
    );
  });

  // [label, filter, value as the query string carries it]; a payload value is JSON text.
  const operatorFilters: Array<[string, string, string]> = [
    ['event NUL', 'event', '\u0000'],
    ['slug NUL', 'slug', '\u0000'],
    ['payload with NUL', 'payload', '{"title":"\\u0000"}'],
    ['payload with a lone surrogate', 'payload', '{"title":"\\ud800"}'],
    ['payload 5,000 deep', 'payload', deeplyNested(5_000)],
    ['from in year 0', 'from', '0000-01-01T00:00:00Z'],
    ['to in year 0', 'to', '0000-01-01T00:00:00Z'],
  ];

  it.each(operatorFilters)(
    'are refused in the operator search: %s',
    async (_label, field, value) => {
      await expectRefusedNaming(
        await api.app.inject({
          method: 'GET',
          url: `/api/admin/events?${query({ [field]: value })}`,
          headers: bearer(admin.token),
        }),
        `query.${field}`,
      );
    },
  );

  it.each(operatorFilters)('are refused in the bulk replay: %s', async (_label, field, value) => {
    // As text: the deep payload is past what JSON.stringify can walk in a test.
    const body = `{"${field}":${field === 'payload' ? value : JSON.stringify(value)}}`;
    await expectRefusedNaming(
      await api.app.inject({
        method: 'POST',
        url: '/api/admin/events/retry',
        headers: { ...bearer(admin.token), 'content-type': 'application/json' },
        payload: body,
      }),
      field,
    );
  });
});

describe('dashboard asset paths that are not file names', () => {
  // Over a real socket: inject() would resolve the dot segments before the server saw them.
  let port: number;
  beforeAll(async () => {
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    const bound = api.app.server.address();
    if (bound === null || typeof bound === 'string') throw new Error('not listening on TCP');
    port = bound.port;
  });
  const getRaw = (path: string) =>
    new Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>(
      (resolve, reject) => {
        const request = httpGet({ host: '127.0.0.1', port, path }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () =>
            resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body }),
          );
        });
        request.on('error', reject);
      },
    );

  it.each([
    '/dashboard/assets/',
    '/dashboard/assets//',
    '/dashboard/assets/..',
    '/dashboard/assets/a/..',
    '/dashboard/assets/x%00',
    '/dashboard/assets/%2e%2e/%2e%2e/package.json',
    '/dashboard/assets/..%2f..%2fpackage.json',
  ])('answer 404 in the problem shape: %s', async (path) => {
    expectProblem(await getRaw(path), 404, 'NOT_FOUND');
  });
});
