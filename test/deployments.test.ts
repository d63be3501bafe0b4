// Two deployments, each with its own database, on one Redis: a process refuses a Redis key
// prefix another deployment holds (exit 1, one line naming the prefix); under prefixes of
// their own, each deployment's workers apply its own events.
import { randomBytes } from 'node:crypto';
import { deploymentKey } from '@ingest/queue';
import { freePort, runCommand, typeScriptEntry, type RunningProcess } from '@ingest/test-harness';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, articleData, finalReceipt, uniqueSlug } from './support/content.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './support/test-database.js';
import { startWorkerProcess } from './support/worker-process.js';

// Deployment A: the shared test database. Deployment B: a database of this file's own.
let other: ScratchDatabase;
let apiA: TestApi;
let apiB: TestApi;
const workers: RunningProcess[] = [];
const redis = new Redis(TEST_REDIS_URL);

beforeAll(async () => {
  other = await createScratchDatabase();
  apiA = await startTestApi();
  apiB = await startTestApi({ DATABASE_URL: other.url });
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop('SIGTERM')));
  await apiA?.close();
  await apiB?.close();
  await other?.drop();
  redis.disconnect();
});

async function deploymentIdOf(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>('SELECT id FROM deployment');
    return rows[0]?.id;
  } finally {
    await client.end();
  }
}

/** Starts an app's process on `databaseUrl` under `prefix`, expecting it to refuse. */
const refusedStart = async (entry: string, databaseUrl: string, prefix: string) =>
  runCommand(process.execPath, typeScriptEntry(entry), {
    env: {
      DATABASE_URL: databaseUrl,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      JWT_SECRET: randomBytes(32).toString('hex'),
      PORT: String(await freePort()),
      WORKER_HTTP_PORT: '0',
      LOG_LEVEL: 'warn',
    },
    timeoutMs: 30_000,
  });

describe('several deployments on one Redis', () => {
  it('refuses a prefix another deployment holds, and keeps each deployment to its own jobs', async () => {
    const prefixA = `test:${apiA.tag}`;
    const prefixB = `test:${apiB.tag}`;
    // A's worker claims its prefix for A's database.
    workers.push(await startWorkerProcess(apiA.tag));
    const idA = await deploymentIdOf(TEST_DATABASE_URL);
    expect(idA).toMatch(/^[0-9a-f-]{36}$/);
    expect(await redis.get(deploymentKey(prefixA))).toBe(idA);

    // B's processes under A's prefix refuse to start, in one line that names it.
    for (const [app, entry] of [
      ['api', 'apps/api/src/server.ts'],
      ['worker', 'apps/worker/src/main.ts'],
    ] as const) {
      const refused = await refusedStart(entry, other.url, prefixA);
      expect(refused.code, refused.stdout).toBe(1);
      const lines = refused.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${app}: cannot start: the Redis key prefix "${prefixA}"`);
      expect(lines[0]).toContain('REDIS_KEY_PREFIX');
    }
    // The refusal left A's claim as it was; B's database has an id of its own.
    expect(await redis.get(deploymentKey(prefixA))).toBe(idA);
    const idB = await deploymentIdOf(other.url);
    expect(idB).toMatch(/^[0-9a-f-]{36}$/);
    expect(idB).not.toBe(idA);

    // Under its own prefix, B's worker starts and claims it.
    workers.push(await startWorkerProcess(apiB.tag, { DATABASE_URL: other.url }));
    expect(await redis.get(deploymentKey(prefixB))).toBe(idB);

    // Each deployment's events are applied by its own worker.
    const published = await Promise.all(
      [apiA, apiB].map(async (api) => {
        const { key } = await createKey(api, await registerAccount(api));
        const id = await accept(api, key, 'article.create', articleData({ slug: uniqueSlug() }));
        return { api, key, id };
      }),
    );
    for (const { api, key, id } of published) {
      expect(await finalReceipt(api, key, id)).toMatchObject({ status: 'succeeded' });
    }
  }, 90_000);
});
