import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { inject } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccountFields } from './support/accounts.js';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

const LEAKY_MESSAGE = 'connection to postgres://admin:hunter2@db.internal failed';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({}, (app) => {
    app.get('/test/boom', async () => {
      throw new Error(LEAKY_MESSAGE);
    });
  });
});
afterAll(() => api.close());

const registerRaw = (body: string, contentType?: string) =>
  api.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    body,
    headers: contentType === undefined ? {} : { 'content-type': contentType },
  });

describe('bodies', () => {
  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    expectProblem(await registerRaw('{"email": ', 'application/json'), 400, 'INVALID_JSON');
  });

  it('answers an empty JSON body with 400 INVALID_JSON', async () => {
    expectProblem(await registerRaw('', 'application/json'), 400, 'INVALID_JSON');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])(
    'answers %s with 415 UNSUPPORTED_MEDIA_TYPE',
    async (contentType) => {
      expectProblem(await registerRaw('email=a@b.c', contentType), 415, 'UNSUPPORTED_MEDIA_TYPE');
    },
  );

  it('accepts application/json with a charset', async () => {
    const response = await registerRaw(
      JSON.stringify(newAccountFields(api)),
      'application/json; charset=utf-8',
    );
    expect(response.statusCode).toBe(201);
  });

  it('refuses a charset other than UTF-8 with 415, rather than decoding it as UTF-8', async () => {
    const latin1 = Buffer.from(
      JSON.stringify({ ...newAccountFields(api), name: 'café' }),
      'latin1',
    );
    for (const charset of ['iso-8859-1', 'utf-16', 'windows-1252']) {
      const response = await api.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        headers: { 'content-type': `application/json; charset=${charset}` },
        payload: latin1,
      });
      expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    expect(await api.deps.db.prisma.account.count({ where: { name: 'caf\uFFFD' } })).toBe(0);
  });

  it('refuses a body that is not valid UTF-8 with 400 INVALID_JSON, storing nothing', async () => {
    const fields = newAccountFields(api);
    const text = JSON.stringify({ ...fields, name: 'caf__' });
    // "é" as Latin-1 would be the single byte 0xE9: not UTF-8 on its own.
    const bytes = Buffer.from(text.replace('__', '\u0000'), 'utf8');
    bytes[bytes.indexOf(0)] = 0xe9;
    const response = await api.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'content-type': 'application/json' },
      payload: bytes.subarray(0, bytes.length),
    });
    expectProblem(response, 400, 'INVALID_JSON');
    expect(await api.deps.db.prisma.account.count({ where: { email: fields.email } })).toBe(0);
  });

  it('refuses an auth body over 16 KiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const body = JSON.stringify({ ...newAccountFields(api), name: 'n'.repeat(17 * 1024) });
    expectProblem(await registerRaw(body, 'application/json'), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses a body that is JSON but not an object', async () => {
    for (const body of ['[]', '"text"', '42', 'null']) {
      expectProblem(await registerRaw(body, 'application/json'), 400, 'VALIDATION_FAILED');
    }
  });
});

describe('routes without a body', () => {
  it('accept a POST that says application/json but sends nothing', async () => {
    // A generated client sets the content type on every POST; pause, resume and retry
    // take no body, so nothing is there to be invalid. (Anonymous: 401, not 400.)
    const response = await api.app.inject({
      method: 'POST',
      url: '/api/admin/queue/pause',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 401, 'UNAUTHENTICATED');
  });
});

describe('request ids', () => {
  it('gives every response an x-request-id, and keeps a safe one the caller sent', async () => {
    const generated = await api.app.inject({ method: 'GET', url: '/api/auth/me' });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await api.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { 'x-request-id': 'bot-42.req_7' },
    });
    expect(kept.headers['x-request-id']).toBe('bot-42.req_7');
    expect(kept.json().requestId).toBe('bot-42.req_7');
  });

  it('replaces a request id that could corrupt logs', async () => {
    const response = await api.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { 'x-request-id': 'evil"\ninjected log line' },
    });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('errors', () => {
  it('answers an unknown route with 404 NOT_FOUND in the problem shape', async () => {
    expectProblem(
      await api.app.inject({ method: 'GET', url: '/api/nothing-here' }),
      404,
      'NOT_FOUND',
    );
  });

  it('answers a known path with the wrong method with 405 METHOD_NOT_ALLOWED and Allow', async () => {
    const response = await api.app.inject({ method: 'DELETE', url: '/api/articles' });
    expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.allow).toBe('GET, HEAD');
    const keys = await api.app.inject({ method: 'PUT', url: '/api/webhooks/api-keys' });
    expectProblem(keys, 405, 'METHOD_NOT_ALLOWED');
    expect(keys.headers.allow).toBe('GET, HEAD, POST');
  });

  it('judges the route before the body: a wrong method or path with a bad body is 405/404', async () => {
    const send = (method: 'POST' | 'DELETE', url: string, contentType: string, body: string) =>
      api.app.inject({ method, url, headers: { 'content-type': contentType }, payload: body });
    for (const [contentType, body] of [
      ['application/json', '{"not json'],
      ['application/json; charset=iso-8859-1', '{}'],
      ['text/plain', 'hello'],
    ]) {
      const wrongMethod = await send('DELETE', '/api/categories', contentType!, body!);
      expectProblem(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
      expectProblem(await send('POST', '/api/nothing-here', contentType!, body!), 404, 'NOT_FOUND');
    }
  });

  it('answers a path whose percent-escapes are not UTF-8 with 400 naming the url', async () => {
    const problem = expectProblem(
      await api.app.inject({ method: 'GET', url: '/api/articles/%ff' }),
      400,
      'VALIDATION_FAILED',
    );
    expect(problem.errors).toEqual([{ path: 'url', message: expect.any(String) }]);
  });

  it('answers a path part longer than any route takes with 414 URI_TOO_LONG', async () => {
    const response = await api.app.inject({
      method: 'GET',
      url: `/api/articles/${'a'.repeat(300)}`,
    });
    expectProblem(response, 414, 'URI_TOO_LONG');
  });

  it('says how to authenticate on every 401, naming each scheme the route takes', async () => {
    const challenges = async (url: string, method: 'GET' | 'POST' = 'GET') => {
      const response = await api.app.inject({
        method,
        url,
        payload: method === 'POST' ? {} : undefined,
      });
      expectProblem(response, 401, 'UNAUTHENTICATED');
      return response.headers['www-authenticate'];
    };
    expect(await challenges('/api/webhooks/api-keys')).toBe('Bearer realm="ingest"');
    expect(await challenges('/api/webhooks/content', 'POST')).toBe(
      'ApiKey realm="ingest", header="x-api-key"',
    );
    expect(await challenges('/api/auth/me')).toBe(
      'ApiKey realm="ingest", header="x-api-key", Bearer realm="ingest"',
    );
  });

  it('answers an unexpected failure with 500 INTERNAL_ERROR and no internals', async () => {
    const response = await api.app.inject({ method: 'GET', url: '/test/boom' });
    const problem = expectProblem(response, 500, 'INTERNAL_ERROR');
    expect(response.body).not.toContain('hunter2');
    expect(response.body).not.toContain('db.internal');
    expect(problem.detail).not.toContain(LEAKY_MESSAGE);
    // ...while the operator finds the cause in the log, under the same request id.
    const logged = api.logLines.find(
      (line) => line.includes(problem.requestId) && line.includes('request failed'),
    );
    expect(logged).toBeDefined();
  });

  it('documents each problem type at its type URI', async () => {
    const response = await api.app.inject({ method: 'GET', url: '/problems/email-taken' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      type: '/problems/email-taken',
      code: 'EMAIL_TAKEN',
      status: 409,
      title: expect.any(String),
    });
    expectProblem(
      await api.app.inject({ method: 'GET', url: '/problems/no-such-type' }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('query parameters', () => {
  it.each([
    '/api/articles?colour=red',
    '/api/articles/some-slug?colour=red',
    '/api/highlights?colour=red',
    '/api/categories?colour=red',
    '/problems/not-found?colour=red',
  ])('refuses an unknown one the same way on every read: %s', async (url) => {
    const problem = expectProblem(
      await api.app.inject({ method: 'GET', url }),
      400,
      'VALIDATION_FAILED',
    );
    expect(problem.errors).toEqual([{ path: 'query.colour', message: 'is not a known field' }]);
  });
});

describe("what Node's HTTP parser refuses, over a real socket", () => {
  let address: { host: string; port: number };
  beforeAll(async () => {
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    const bound = api.app.server.address();
    if (bound === null || typeof bound === 'string') throw new Error('not listening on TCP');
    address = { host: '127.0.0.1', port: bound.port };
  });

  /** Sends raw bytes, resolves with everything the server answers before it hangs up. */
  const exchange = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(address, () => socket.end(bytes));
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });

  const problemIn = (answer: string) => {
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    return { head, problem: JSON.parse(body) as Record<string, unknown> };
  };

  it('answers headers over the limit with 431 HEADERS_TOO_LARGE, as a problem', async () => {
    const answer = await exchange(
      `GET /api/categories HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
    );
    const { head, problem } = problemIn(answer);
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    const requestId = /x-request-id: (\S+)/i.exec(head)?.[1];
    expect(problem).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE', requestId });
  });

  it('answers an HTTP/1.1 request without Host with 400 naming the header, as a problem', async () => {
    const answer = await exchange('GET /api/categories HTTP/1.1\r\nConnection: close\r\n\r\n');
    const { head, problem } = problemIn(answer);
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    expect(problem).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'headers.host', message: expect.any(String) }],
    });
  });

  it('answers a request line that is not HTTP with 400, as a problem', async () => {
    const { head, problem } = problemIn(await exchange('GARBAGE\r\n\r\n'));
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(problem).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  });
});

describe('an instance that is shutting down', () => {
  it('answers a request that still reaches it with 503 UNAVAILABLE, as a problem', async () => {
    const closing = await startTestApi();
    await closing.close();
    // inject() refuses a closed instance, so the request goes to its router directly, as
    // one arriving on a keep-alive connection does while the instance drains.
    const route = (request: IncomingMessage, response: ServerResponse) =>
      closing.app.routing(request, response);
    const response = await inject(route, { method: 'GET', url: '/api/categories' });
    expectProblem(response, 503, 'UNAVAILABLE');
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers.connection).toBe('close');
  });
});
