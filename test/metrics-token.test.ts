// METRICS_TOKEN: with it set, /metrics on the API's public port answers only a scrape that
// sends it as a bearer token, and the OpenAPI document says so; the token never shows in
// the API's logs.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from './support/problems.js';
import { startTestApi, type TestApi } from './support/test-api.js';

const TOKEN = randomBytes(24).toString('base64url');
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ METRICS_TOKEN: TOKEN });
});
afterAll(async () => {
  await api?.close();
});

const scrape = (authorization?: string) =>
  api.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: authorization === undefined ? {} : { authorization },
  });

describe('/metrics behind METRICS_TOKEN', () => {
  it('refuses a scrape without the token, or with another, as 401 with a Bearer challenge', async () => {
    for (const authorization of [undefined, 'Bearer not-the-token', `Basic ${TOKEN}`, TOKEN]) {
      const response = await scrape(authorization);
      expectProblem(response, 401, 'UNAUTHENTICATED');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    }
  });

  it('answers the scrape that sends it, and keeps it out of the logs', async () => {
    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(/^ingest_queue_up\{app="api"\} 1$/m);
    expect(api.logLines.join('\n')).not.toContain(TOKEN);
  });

  it('is declared in the OpenAPI document: the operation is secured and may answer 401', async () => {
    const document = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, { get: { security: unknown[]; responses: Record<string, unknown> } }>;
      components: { securitySchemes: Record<string, unknown> };
    }>();
    const metrics = document.paths['/metrics']!.get;
    expect(metrics.security).toEqual([{ metricsToken: [] }]);
    expect(metrics.responses).toHaveProperty('401');
    expect(document.components.securitySchemes).toHaveProperty('metricsToken');
  });

  it('stays open where no token is set, as before', async () => {
    const open = await startTestApi();
    try {
      expect((await open.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
      // Nor is the scheme declared where nothing uses it.
      const document = (await open.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
        components: { securitySchemes: Record<string, unknown> };
      }>();
      expect(document.components.securitySchemes).not.toHaveProperty('metricsToken');
    } finally {
      await open.close();
    }
  });
});
