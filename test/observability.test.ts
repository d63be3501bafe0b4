// What operators watch: /metrics and health on the API and the worker, the OpenAPI
// document, and logs that follow an event end to end.
import { randomUUID } from 'node:crypto';
import { PREMAKE_DAYS } from '@ingest/event-log';
import { createMetricsRegistry, registerQueueDepth } from '@ingest/observability';
import {
  connectRedis,
  createContentQueue,
  createRedisConnection,
  readQueueDepth,
} from '@ingest/queue';
import { freePort, startTcpProxy } from '@ingest/test-harness';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, articleData, finalReceipt, sendEvent, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { TEST_REDIS_URL } from './support/test-database.js';
import { newTestTag } from './support/test-env.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';
import { sample } from './support/metrics.js';

let api: TestApi;
let worker: WorkerProcess;
let workerUrl: string;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  worker = await startWorkerProcess(api.tag);
  workerUrl = JSON.parse(await worker.waitForLine(/worker ready/)).http as string;
  ({ key } = await createKey(api, await registerAccount(api)));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

const apiMetrics = async () => (await api.app.inject({ method: 'GET', url: '/metrics' })).body;
const workerMetrics = async () => (await fetch(`${workerUrl}/metrics`)).text();

describe('/metrics', () => {
  it('on the API: request count and duration by route and status, events accepted and rejected, queue depth, process metrics', async () => {
    const before = await apiMetrics();
    const route = { route: '/api/webhooks/content', status_code: '202' };
    await accept(api, key, 'article.create', articleData({ slug: uniqueSlug() }));
    await sendEvent(api, key, 'article.create', articleData({ title: '' }));
    const after = await apiMetrics();
    expect(sample(after, 'ingest_http_request_duration_seconds_count', route)).toBe(
      sample(before, 'ingest_http_request_duration_seconds_count', route) + 1,
    );
    expect(
      sample(after, 'ingest_http_request_duration_seconds_bucket', { ...route, le: '+Inf' }),
    ).toBeGreaterThan(0);
    expect(sample(after, 'ingest_events_accepted_total', { event: 'article.create' })).toBe(
      sample(before, 'ingest_events_accepted_total', { event: 'article.create' }) + 1,
    );
    expect(sample(after, 'ingest_events_rejected_total', { code: 'VALIDATION_FAILED' })).toBe(
      sample(before, 'ingest_events_rejected_total', { code: 'VALIDATION_FAILED' }) + 1,
    );
    expect(after).toMatch(/^ingest_queue_jobs\{state="waiting",app="api"\} \d+$/m);
    expect(after).toMatch(/^process_resident_memory_bytes\{app="api"\} \d+/m);
  });

  it("on the API: the event log's storage per table, held partitions, hours made ahead", async () => {
    const text = await apiMetrics();
    for (const table of ['webhook_logs', 'event_attempts']) {
      expect(sample(text, 'ingest_event_log_bytes', { table })).toBeGreaterThan(0);
      // Today's (or the legacy one) and the coming week's, at least.
      expect(sample(text, 'ingest_event_log_partitions', { table })).toBeGreaterThanOrEqual(
        PREMAKE_DAYS,
      );
    }
    expect(text).toMatch(/^ingest_event_log_partitions_held\{app="api"\} \d+$/m);
    // The API made a week's partitions at start, a moment ago, on a grid of at most a day.
    const premade = sample(text, 'ingest_event_log_premade_hours');
    expect(premade).toBeGreaterThan(PREMAKE_DAYS * 24 - 1);
    expect(premade).toBeLessThan((PREMAKE_DAYS + 1) * 24 + 1);
  });

  it('on the worker: jobs by event and outcome, processing duration, accept-to-applied lag, queue depth, process metrics', async () => {
    const before = await workerMetrics();
    // highlight.create: no other test of this file sends one, so nothing else moves it.
    const succeeded = { event: 'highlight.create', outcome: 'succeeded' };
    const failed = { event: 'article.delete', outcome: 'failed' };
    await finalReceipt(
      api,
      key,
      await accept(api, key, 'highlight.create', {
        title: 'Clip',
        videoUrl: 'https://v.example/1',
      }),
    );
    await finalReceipt(api, key, await accept(api, key, 'article.delete', { slug: uniqueSlug() }));
    const after = await workerMetrics();
    expect(sample(after, 'ingest_jobs_processed_total', succeeded)).toBe(
      sample(before, 'ingest_jobs_processed_total', succeeded) + 1,
    );
    expect(sample(after, 'ingest_jobs_processed_total', failed)).toBe(
      sample(before, 'ingest_jobs_processed_total', failed) + 1,
    );
    expect(
      sample(after, 'ingest_job_processing_seconds_count', { event: 'highlight.create' }),
    ).toBeGreaterThan(
      sample(before, 'ingest_job_processing_seconds_count', { event: 'highlight.create' }),
    );
    expect(sample(after, 'ingest_event_lag_seconds_count', { event: 'highlight.create' })).toBe(
      sample(before, 'ingest_event_lag_seconds_count', { event: 'highlight.create' }) + 1,
    );
    expect(after).toMatch(/^ingest_queue_jobs\{state="active",app="worker"\} \d+$/m);
    expect(after).toMatch(/^nodejs_heap_size_used_bytes\{app="worker"\} \d+/m);
  });
});

describe('the queue series', () => {
  const queueSeries = /^ingest_queue_(jobs|oldest_waiting_age_seconds)\{/m;

  it('report jobs per state and the oldest waiting age; once Redis is gone, ingest_queue_up 0 and no stale figures', async () => {
    const redis = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    const prefix = `test:${newTestTag()}`;
    const connection = await connectRedis(`redis://127.0.0.1:${proxy.port}`, 'producer', prefix);
    const queue = createContentQueue(connection, prefix);
    queue.on('error', () => {});
    const registry = createMetricsRegistry('api');
    registerQueueDepth(registry, () => readQueueDepth([queue]));
    try {
      await queue.add('article.create', {
        eventId: randomUUID(),
        requestId: 'r',
        accountId: randomUUID(),
      });
      const answered = await registry.metrics();
      expect(answered).toMatch(/^ingest_queue_up\{app="api"\} 1$/m);
      expect(sample(answered, 'ingest_queue_jobs', { state: 'waiting' })).toBe(1);
      expect(answered).toMatch(/^ingest_queue_oldest_waiting_age_seconds\{app="api"\} \d/m);

      await queue.obliterate({ force: true });
      await proxy.close();
      const gone = await registry.metrics();
      expect(gone).toMatch(/^ingest_queue_up\{app="api"\} 0$/m);
      expect(gone).not.toMatch(queueSeries);
    } finally {
      connection.disconnect();
      await queue.close();
    }
  });

  it('answer a scrape while a worker connection waits for Redis to come back', async () => {
    const prefix = `test:${newTestTag()}`;
    // A worker connection queues commands until Redis is back: a read never fails, it waits.
    const url = `redis://127.0.0.1:${await freePort()}`;
    const connection = createRedisConnection(url, 'worker', prefix);
    const queue = createContentQueue(connection, prefix);
    queue.on('error', () => {});
    const registry = createMetricsRegistry('worker');
    registerQueueDepth(registry, () => readQueueDepth([queue]));
    try {
      // Redis never comes back here, and the connection would wait for it forever: the
      // scrape answers at all only because the read has a deadline.
      const scraped = await registry.metrics();
      expect(scraped).toMatch(/^ingest_queue_up\{app="worker"\} 0$/m);
      expect(scraped).not.toMatch(queueSeries);
    } finally {
      connection.disconnect();
      await queue.close();
    }
  });
});

describe('health', () => {
  it('answers live and ready on the API and on the worker', async () => {
    expect((await api.app.inject({ method: 'GET', url: '/health/live' })).json()).toEqual({
      status: 'ok',
    });
    expect((await api.app.inject({ method: 'GET', url: '/health/ready' })).json()).toEqual({
      status: 'ok',
      checks: { postgres: 'ok', redis: 'ok' },
    });
    expect(await (await fetch(`${workerUrl}/health/live`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${workerUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });
});

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const document = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every route registered in Fastify; only the docs and dashboard pages are left out', async () => {
    const document = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const documented = new Set<string>();
    for (const [path, operations] of Object.entries(document.paths as Record<string, object>)) {
      for (const method of Object.keys(operations))
        documented.add(`${method.toUpperCase()} ${path}`);
    }
    const routes = api.app.routeTable.filter((route) => route.method !== 'HEAD');
    const missing = routes
      .filter((route) => !route.hidden)
      .map((route) => `${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`)
      .filter((route) => !documented.has(route));
    expect(missing).toEqual([]);
    const undocumented = routes.filter((route) => route.hidden).map((route) => route.url);
    expect(
      undocumented.filter((url) => !/^\/(openapi\.json|docs|dashboard)(\/|$)/.test(url)),
    ).toEqual([]);
  });

  it('lists every error code and serves a reference page at /docs', async () => {
    const document = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const { ERROR_CODES } = await import('@ingest/contracts');
    const codes = document.components.schemas.Problem.properties.code.enum as string[];
    expect(codes.sort()).toEqual(Object.keys(ERROR_CODES).sort());
    const page = await api.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('logs', () => {
  it('carry the event id and the request id on every line about an event, in the API and in the worker', async () => {
    const requestId = `trace-${uniqueSlug()}`;
    const response = await sendEvent(
      api,
      key,
      'article.create',
      articleData({ slug: uniqueSlug() }),
      { 'x-request-id': requestId },
    );
    const eventId = response.json().id as string;
    await finalReceipt(api, key, eventId);
    // Lines about the event carry its id as a field (reads of its receipt are requests of
    // their own, with their own request ids).
    const about = (line: string) => line.includes(`"eventId":"${eventId}"`);
    const apiLines = api.logLines.filter(about);
    expect(apiLines.some((line) => line.includes('"msg":"request completed"'))).toBe(true);
    expect(apiLines.every((line) => line.includes(`"requestId":"${requestId}"`))).toBe(true);
    await worker.waitForLine(new RegExp(`"eventId":"${eventId}".*"msg":"event applied"`));
    const workerLines = worker.lines.filter(about);
    expect(workerLines.length).toBeGreaterThan(0);
    expect(workerLines.every((line) => line.includes(`"requestId":"${requestId}"`))).toBe(true);
  });
});
