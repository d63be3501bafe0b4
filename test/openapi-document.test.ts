// What a client author relies on in /openapi.json, checked operation by operation: the
// error media type, the statuses and headers every operation can answer, who needs no
// credentials, and names a generator can turn into functions. (That every answer matches
// the document is the contract suite's job: test/contract/.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/test-api.js';

interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: unknown;
  responses: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }
  >;
}

let api: TestApi;
let document: {
  servers?: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
};
let operations: Array<{ name: string; path: string; method: string; operation: Operation }>;
beforeAll(async () => {
  api = await startTestApi();
  document = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  operations = Object.entries(document.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${path}`,
      path,
      method,
      operation,
    })),
  );
});
afterAll(() => api.close());

const where = (check: (operation: Operation, path: string, method: string) => boolean) =>
  operations
    .filter(({ operation, path, method }) => !check(operation, path, method))
    .map(({ name }) => name);

describe('the OpenAPI document', () => {
  it('names every operation with a unique verb + noun operationId', () => {
    expect(
      where((operation) => /^[a-z]+[A-Z][A-Za-z]*$/.test(operation.operationId ?? '')),
    ).toEqual([]);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('declares every error as application/problem+json with the shared Problem schema', () => {
    const wrong = operations.flatMap(({ name, operation }) =>
      Object.entries(operation.responses)
        // Readiness answers 503 with its checks, for probes and people, not as an error.
        .filter(
          ([status]) => Number(status) >= 400 && `${name} ${status}` !== 'GET /health/ready 503',
        )
        .filter(([, response]) => {
          const media = Object.keys(response.content ?? {});
          return media.length !== 1 || media[0] !== 'application/problem+json';
        })
        .map(([status]) => `${name} ${status}`),
    );
    expect(wrong).toEqual([]);
  });

  it('declares what every operation can answer: 400, 405, 500, x-request-id; success described', () => {
    expect(
      where((operation) => ['400', '405', '500'].every((status) => status in operation.responses)),
    ).toEqual([]);
    expect(
      where((operation) =>
        Object.values(operation.responses).every(
          (response) =>
            (response.headers?.['x-request-id'] as { required?: boolean } | undefined)?.required ===
            true,
        ),
      ),
    ).toEqual([]);
    // Every 401, a wrong password included, says how to authenticate.
    expect(
      where(
        (operation) =>
          !('401' in operation.responses) ||
          'www-authenticate' in (operation.responses['401']?.headers ?? {}),
      ),
    ).toEqual([]);
    expect(
      where((operation) =>
        Object.entries(operation.responses)
          .filter(([status]) => status.startsWith('2'))
          .every(([, response]) => (response.description ?? '').length > 0),
      ),
    ).toEqual([]);
    expect(
      where((operation) =>
        (operation.parameters ?? []).some((p) => p.in === 'header' && p.name === 'x-request-id'),
      ),
    ).toEqual([]);
  });

  it('declares 413 and 415 on every operation that takes a body', () => {
    expect(
      where(
        (operation) =>
          operation.requestBody === undefined ||
          ('413' in operation.responses && '415' in operation.responses),
      ),
    ).toEqual([]);
    const bodied = operations
      .filter(({ operation }) => operation.requestBody !== undefined)
      .map(({ name }) => name);
    expect(bodied).toEqual(
      expect.arrayContaining(['POST /api/admin/session', 'POST /api/admin/events/retry']),
    );
  });

  it('declares 401 with WWW-Authenticate where credentials are needed, and security: [] where not', () => {
    expect(
      where((operation) =>
        operation.security === undefined
          ? false
          : operation.security.length === 0 ||
            'www-authenticate' in (operation.responses['401']?.headers ?? {}),
      ),
    ).toEqual([]);
    const open = operations
      .filter(({ operation }) => operation.security?.length === 0)
      .map(({ name }) => name);
    expect(open).toEqual(
      expect.arrayContaining([
        'POST /api/auth/register',
        'POST /api/auth/login',
        'GET /api/articles',
        'GET /health/live',
      ]),
    );
  });

  it('declares 429 with Retry-After and RateLimit-* where requests are rate limited', () => {
    for (const name of [
      'POST /api/auth/register',
      'POST /api/auth/login',
      'POST /api/webhooks/content',
    ]) {
      const operation = operations.find((candidate) => candidate.name === name)!.operation;
      expect(Object.keys(operation.responses['429']?.headers ?? {}), name).toEqual(
        expect.arrayContaining([
          'retry-after',
          'ratelimit-limit',
          'ratelimit-remaining',
          'ratelimit-reset',
        ]),
      );
    }
  });

  it('declares the request and response headers of publishing', () => {
    const publish = operations.find(
      ({ operation }) => operation.operationId === 'publishEvent',
    )!.operation;
    const headerNames = (publish.parameters ?? [])
      .filter((p) => p.in === 'header')
      .map((p) => p.name);
    expect(headerNames).toEqual(
      expect.arrayContaining(['idempotency-key', 'prefer', 'x-request-id']),
    );
    for (const status of ['200', '202']) {
      expect(Object.keys(publish.responses[status]?.headers ?? {}), status).toEqual(
        expect.arrayContaining(['location', 'idempotent-replayed', 'ratelimit-limit']),
      );
    }
    // Only a wait that ended in time says which wait it applied; a failure it ended in
    // comes with the headers of the acceptance.
    for (const status of ['200', '400', '404', '409', '500']) {
      expect(Object.keys(publish.responses[status]?.headers ?? {}), status).toEqual(
        expect.arrayContaining(['location', 'preference-applied', 'idempotent-replayed']),
      );
    }
    // Rate limits count every request: their headers come with every answer after the count.
    expect(Object.keys(publish.responses['422']?.headers ?? {})).toContain('ratelimit-remaining');
    const session = operations.find(
      ({ operation }) => operation.operationId === 'logInOperator',
    )!.operation;
    expect(Object.keys(session.responses['200']?.headers ?? {})).toContain('set-cookie');
  });

  it('names the queue counts, and declares the body of every 202 that sends one', () => {
    expect(Object.keys(document.components.schemas.QueueState?.properties?.counts ?? {})).toEqual(
      expect.arrayContaining(['properties']),
    );
    const retry = operations.find(
      ({ operation }) => operation.operationId === 'retryEvent',
    )!.operation;
    expect(Object.keys(retry.responses['202']?.content ?? {})).toEqual(['application/json']);
  });
});
