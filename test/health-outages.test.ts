// Readiness follows PostgreSQL and Redis, on private instances stopped for the test.
import { startPrivateRedis, type PrivateRedis } from '@ingest/test-harness';
import { startPrivatePostgres, type PrivatePostgres } from '@ingest/test-harness/private-postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let postgres: PrivatePostgres;
let redis: PrivateRedis;
let api: TestApi;
let worker: WorkerProcess;
let workerUrl: string;
beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  api = await startTestApi({ DATABASE_URL: postgres.url, REDIS_URL: redis.url });
  worker = await startWorkerProcess(api.tag, { DATABASE_URL: postgres.url, REDIS_URL: redis.url });
  workerUrl = JSON.parse(await worker.waitForLine(/worker ready/)).http as string;
});
afterAll(async () => {
  await worker?.stop();
  await api?.close().catch(() => {});
  await redis?.stop();
  await postgres?.destroy();
});

async function readiness() {
  const fromApi = await api.app.inject({ method: 'GET', url: '/health/ready' });
  const fromWorker = await fetch(`${workerUrl}/health/ready`);
  return {
    api: { status: fromApi.statusCode, body: fromApi.json() },
    worker: { status: fromWorker.status, body: await fromWorker.json() },
  };
}

it('is ready while both answer, and not ready (503) while either is stopped, while staying live', async () => {
  const ok = { status: 200, body: { status: 'ok', checks: { postgres: 'ok', redis: 'ok' } } };
  expect(await readiness()).toEqual({ api: ok, worker: ok });

  await postgres.stop();
  const noPostgres = {
    status: 503,
    body: { status: 'unavailable', checks: { postgres: 'failed', redis: 'ok' } },
  };
  expect(await readiness()).toEqual({ api: noPostgres, worker: noPostgres });
  expect((await api.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
  expect((await fetch(`${workerUrl}/health/live`)).status).toBe(200);
  await postgres.start();
  await expect.poll(async () => (await readiness()).api.status, { timeout: 10_000 }).toBe(200);

  await redis.stop();
  const noRedis = {
    status: 503,
    body: { status: 'unavailable', checks: { postgres: 'ok', redis: 'failed' } },
  };
  expect(await readiness()).toEqual({ api: noRedis, worker: noRedis });
  await redis.start();
  await expect.poll(async () => (await readiness()).worker.status, { timeout: 10_000 }).toBe(200);
}, 60_000);
