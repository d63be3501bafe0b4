// What the operators' queue state and /metrics read from Redis (@ingest/queue's
// readQueueDepth and countWorkers), against the machine's Redis.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  connectRedis,
  countWorkers,
  createContentQueue,
  readQueueDepth,
  type ContentQueue,
} from '@ingest/queue';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from './support/test-database.js';
import { newTestTag } from './support/test-env.js';

const tag = newTestTag();
const prefix = `test:${tag}`;
let redis: Redis;
let queue: ContentQueue;
beforeAll(async () => {
  redis = await connectRedis(TEST_REDIS_URL, 'producer', `test-queue-queries-${tag}`);
  queue = createContentQueue(redis, prefix);
});
afterAll(async () => {
  await queue?.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
});

const addJob = () =>
  queue.add(
    'article.create',
    { eventId: randomUUID(), requestId: 'r', accountId: randomUUID() },
    { jobId: randomUUID() },
  );

describe('readQueueDepth', () => {
  it('counts jobs per state, and ages the job next in line, not the newest', async () => {
    expect(await readQueueDepth([queue])).toEqual({
      counts: { waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0, prioritized: 0 },
      oldestWaitingAgeSeconds: null,
      paused: false,
    });
    const firstAddedBy = Date.now();
    await addJob();
    await sleep(700);
    await addJob();
    const depth = await readQueueDepth([queue]);
    const readBy = Date.now();
    expect(depth.counts.waiting).toBe(2);
    // The newest job has waited a few milliseconds; the first one, at least the pause, and
    // no longer than since it was added (however slow this machine was meanwhile).
    expect(depth.oldestWaitingAgeSeconds).toBeGreaterThanOrEqual(0.65);
    expect(depth.oldestWaitingAgeSeconds).toBeLessThanOrEqual((readBy - firstAddedBy) / 1000);
    await queue.pause();
    expect((await readQueueDepth([queue])).paused).toBe(true);
    await queue.resume();
  });
});

describe('countWorkers', () => {
  it('counts the workers on the queue', async () => {
    const connection = await connectRedis(TEST_REDIS_URL, 'worker', `test-worker-${tag}`);
    const worker = new Worker(queue.name, async () => undefined, {
      connection,
      prefix: `${prefix}:bull`,
      autorun: false,
    });
    // Not run: a running worker would take the jobs of the test above; named is enough.
    await worker.waitUntilReady();
    try {
      await expect.poll(() => countWorkers(queue)).toBe(1);
    } finally {
      await worker.close();
      connection.disconnect();
    }
  });

  it('is null, not 0, when Redis refuses CLIENT LIST', async () => {
    const user = `ingest-test-${tag}`;
    await redis.call('ACL', 'SETUSER', user, 'on', 'nopass', '~*', '&*', '+@all', '-client');
    const url = new URL(TEST_REDIS_URL);
    url.username = user;
    const restricted = await connectRedis(url.toString(), 'producer', `test-acl-${tag}`);
    restricted.on('error', () => {});
    const restrictedQueue = createContentQueue(restricted, prefix);
    try {
      expect(
        await restricted.call('CLIENT', 'LIST').catch((error: Error) => error.message),
      ).toMatch(/NOPERM/);
      expect(await countWorkers(restrictedQueue)).toBeNull();
    } finally {
      await restrictedQueue.close();
      restricted.disconnect();
      await redis.call('ACL', 'DELUSER', user);
    }
  });
});
