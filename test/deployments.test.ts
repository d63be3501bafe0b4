// Two deployments, each with its own database, on one Redis: a process refuses a Redis key
// prefix another deployment holds (exit 1, one line naming the prefix); under prefixes of
// their own, each deployment's workers apply its own events; a worker given a job for an
// event its database does not hold says so and leaves the job to its owner; and a running
// worker claims its prefix again, and stops when another deployment holds it.
import { randomBytes, randomUUID } from 'node:crypto';
import { deploymentKey, enqueueContentEvents, NAMESPACE_RECLAIM_MS } from '@ingest/queue';
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
let prefixA: string;
let prefixB: string;
let workerA: RunningProcess;
const workers: RunningProcess[] = [];
const redis = new Redis(TEST_REDIS_URL);

beforeAll(async () => {
  other = await createScratchDatabase();
  apiA = await startTestApi();
  apiB = await startTestApi({ DATABASE_URL: other.url });
  prefixA = `test:${apiA.tag}`;
  prefixB = `test:${apiB.tag}`;
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop('SIGTERM')));
  await apiA?.close();
  await apiB?.close();
  await other?.drop();
  redis.disconnect();
});

/** The rows `sql` reads from the database at `url`. */
async function rowsOf<Row extends object>(url: string, sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

const deploymentIdOf = async (url: string): Promise<string | undefined> =>
  (await rowsOf<{ id: string }>(url, 'SELECT id FROM deployment'))[0]?.id;

/** What a database records of an event: its row and its attempts. */
const eventRecordOf = async (url: string, eventId: string) => ({
  event: (await rowsOf(url, 'SELECT * FROM webhook_logs WHERE id = $1', [eventId]))[0],
  attempts: await rowsOf(url, 'SELECT * FROM event_attempts WHERE event_id = $1', [eventId]),
});

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
    // A's worker claims its prefix for A's database.
    workerA = await startWorkerProcess(apiA.tag);
    workers.push(workerA);
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

  it('leaves a job for an event its database does not hold to the deployment that holds it', async () => {
    // An event of B's, held in B's paused queue so that nothing applies it meanwhile.
    await apiB.deps.queues.pause(true);
    const { key } = await createKey(apiB, await registerAccount(apiB));
    const slug = uniqueSlug();
    const eventId = await accept(apiB, key, 'article.create', articleData({ slug }));
    const before = await eventRecordOf(other.url, eventId);
    expect(before.event).toMatchObject({ status: 'queued', attempts: 0 });
    expect(before.attempts).toEqual([]);

    // Its job in A's queue, as B's API would queue it under A's prefix.
    const { account_id: accountId, request_id: requestId } = before.event as {
      account_id: string;
      request_id: string;
    };
    const data = { eventId, requestId, accountId };
    await enqueueContentEvents(
      apiA.deps.queues,
      [{ event: 'article.create', data, weight: 1 }],
      apiA.deps.config.jobs,
    );

    // A's worker takes it and says so, loudly, naming the event and the prefix...
    const said = JSON.parse(
      await workerA.waitForLine(new RegExp(`"eventId":"${eventId}".*does not hold`)),
    ) as Record<string, unknown>;
    expect(said).toMatchObject({ level: 'error', eventId, requestId, keyPrefix: prefixA });
    expect(said.msg).toContain('REDIS_KEY_PREFIX');
    // ...and fails the job rather than completing it: it stays in the failed set, as it
    // was queued, where its owner's reconciler finds it and queues it again.
    const queue = apiA.deps.queues.of(accountId);
    await expect.poll(() => queue.getJobState(eventId), { timeout: 10_000 }).toBe('failed');
    const job = await queue.getJob(eventId);
    expect(job?.name).toBe('article.create');
    expect(job?.data).toEqual(data);
    expect(job?.failedReason).toBe(`event ${eventId} is not recorded`);

    // Neither database changed: A records nothing of it, B's event waits as it did.
    expect(await eventRecordOf(TEST_DATABASE_URL, eventId)).toEqual({
      event: undefined,
      attempts: [],
    });
    expect(
      await rowsOf(TEST_DATABASE_URL, 'SELECT id FROM articles WHERE slug = $1', [slug]),
    ).toEqual([]);
    expect(await eventRecordOf(other.url, eventId)).toEqual(before);
    // Its owner applies it.
    await apiB.deps.queues.pause(false);
    expect(await finalReceipt(apiB, key, eventId)).toMatchObject({ status: 'succeeded' });
  }, 60_000);

  it('claims the prefix again while it runs, and stops once another deployment holds it', async () => {
    const idA = await deploymentIdOf(TEST_DATABASE_URL);
    // Gone, as after a Redis restart without persistence: A's running worker sets it again.
    await redis.del(deploymentKey(prefixA));
    await expect
      .poll(() => redis.get(deploymentKey(prefixA)), { timeout: 4 * NAMESPACE_RECLAIM_MS })
      .toBe(idA);
    // The line may arrive after the key: it is written once the key is set.
    await workerA.waitForLine(/claimed it again/, 5_000);
    expect(workerA.lines.filter((line) => line.includes('claimed it again'))).toHaveLength(1);

    // Taken meanwhile by another deployment: A's worker stops, exit code 1, one line.
    const from = workerA.lines.length;
    const otherId = randomUUID();
    await redis.set(deploymentKey(prefixA), otherId);
    await expect.poll(() => workerA.hasExited(), { timeout: 4 * NAMESPACE_RECLAIM_MS }).toBe(true);
    expect(await workerA.stop()).toBe(1);
    // Its last line, and its only one above info since the key changed hands.
    const said = workerA.lines.slice(from).filter((line) => !line.includes('"level":"info"'));
    expect(said).toEqual([workerA.lines.at(-1)]);
    expect(JSON.parse(said[0] ?? '{}')).toMatchObject({
      level: 'error',
      keyPrefix: prefixA,
      msg: expect.stringContaining(
        `the Redis key prefix "${prefixA}" belongs to another deployment (${otherId}; this database's is ${idA})`,
      ),
    });
    // The claim is the other deployment's still.
    expect(await redis.get(deploymentKey(prefixA))).toBe(otherId);
  }, 60_000);
});
