// Reads from a streaming replica (DATABASE_READ_URL), on a private primary and replica
// of the test's own: anonymous public reads and the operators' search go to it while it
// keeps up; a caller with credentials reads its own writes from the primary; a replica
// that falls behind or stops sends every read back to the primary, never to an error.
import {
  startPrivatePostgres,
  startPrivateReplica,
  type PrivatePostgres,
} from '@ingest/test-harness/private-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, registerAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import { articleData, finalReceipt, accept, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';
import { sample } from './support/metrics.js';

const MAX_LAG_MS = 500;

let primary: PrivatePostgres;
let replica: PrivatePostgres;
let api: TestApi;
let worker: WorkerProcess;
let key: string;

beforeAll(async () => {
  primary = await startPrivatePostgres();
  replica = await startPrivateReplica(primary);
  api = await startTestApi({
    DATABASE_URL: primary.url,
    DATABASE_READ_URL: replica.url,
    DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS),
  });
  worker = await startWorkerProcess(api.tag, { DATABASE_URL: primary.url });
  ({ key } = await createKey(api, await registerAccount(api)));
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close().catch(() => {});
  await replica?.destroy();
  await primary?.destroy();
});

async function created(): Promise<string> {
  const slug = uniqueSlug('replicated');
  const id = await accept(api, key, 'article.create', articleData({ slug }));
  expect((await finalReceipt(api, key, id)).status).toBe('succeeded');
  return slug;
}

const readAnonymously = (slug: string) =>
  api.app.inject({ method: 'GET', url: `/api/articles/${slug}` });
const readAsPublisher = (slug: string) =>
  api.app.inject({ method: 'GET', url: `/api/articles/${slug}`, headers: { 'x-api-key': key } });

const metric = async (name: string, of: TestApi = api): Promise<number> =>
  sample((await of.app.inject({ method: 'GET', url: '/metrics' })).body, name);

/** Runs `statement` on the replica itself (pausing or resuming its replay). */
async function onReplica(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: replica.url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describe('a read replica', () => {
  it('serves anonymous reads while it keeps up, and says so in /metrics', async () => {
    await expect.poll(() => metric('ingest_read_replica_in_use'), { timeout: 10_000 }).toBe(1);
    // Both series are always there (sample() reads a missing one as 0).
    const text = (await api.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toMatch(/^ingest_read_replica_lag_seconds\{/m);
    expect(text).toMatch(/^ingest_read_replica_in_use\{/m);
    expect(await metric('ingest_read_replica_lag_seconds')).toBeLessThan(MAX_LAG_MS / 1_000);
    const slug = await created();
    await expect.poll(async () => (await readAnonymously(slug)).statusCode).toBe(200);
  });

  it('lets a publisher read its own writes at once, from the primary', async () => {
    // A paused replay freezes the replica: what is written now reaches only the primary.
    // An API that bears any lag keeps its anonymous reads on the frozen replica; the one
    // with the short bound sends them back to the primary once the lag passes it.
    const patient = await startTestApi({
      DATABASE_URL: primary.url,
      DATABASE_READ_URL: replica.url,
      DATABASE_READ_MAX_LAG_MS: '3600000',
    });
    await expect.poll(() => metric('ingest_read_replica_in_use', patient)).toBe(1);
    await onReplica('SELECT pg_wal_replay_pause()');
    try {
      const slug = await created();
      expect((await readAsPublisher(slug)).statusCode).toBe(200);
      const fromReplica = await patient.app.inject({ method: 'GET', url: `/api/articles/${slug}` });
      expect(fromReplica.statusCode).toBe(404);
      await expect
        .poll(async () => (await readAnonymously(slug)).statusCode, { timeout: 10_000 })
        .toBe(200);
      expect(await metric('ingest_read_replica_in_use')).toBe(0);
      expect(await metric('ingest_read_replica_lag_seconds')).toBeGreaterThan(MAX_LAG_MS / 1_000);
    } finally {
      await onReplica('SELECT pg_wal_replay_resume()');
      await patient.close();
    }
    await expect.poll(() => metric('ingest_read_replica_in_use'), { timeout: 10_000 }).toBe(1);
  });

  it('sends every read to the primary while the replica is stopped, and back when it returns', async () => {
    const admin = await registerAdmin(api);
    await replica.stop();
    try {
      await expect.poll(() => metric('ingest_read_replica_in_use'), { timeout: 10_000 }).toBe(0);
      expect(await metric('ingest_read_replica_lag_seconds')).toBeNaN();
      const slug = await created();
      expect((await readAnonymously(slug)).statusCode).toBe(200);
      const search = await api.app.inject({
        method: 'GET',
        url: '/api/admin/events?limit=5',
        headers: bearer(admin.token),
      });
      expect(search.statusCode, search.body).toBe(200);
      const storage = await api.app.inject({
        method: 'GET',
        url: '/api/admin/storage',
        headers: bearer(admin.token),
      });
      expect(storage.statusCode, storage.body).toBe(200);
    } finally {
      await replica.start();
    }
    await expect.poll(() => metric('ingest_read_replica_in_use'), { timeout: 10_000 }).toBe(1);
  });
});
