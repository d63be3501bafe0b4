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
