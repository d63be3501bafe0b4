// The content queue's fair order between accounts and the accounts' caps on events in
// flight (@ingest/fairness), against the machine's Redis: the order BullMQ will hand jobs
// to workers in, read straight from its prioritized set.
import { randomUUID } from 'node:crypto';
import { acquireSlot, EVENTS_PER_LEVEL, rebaseFairOrder, releaseSlot } from '@ingest/fairness';
import {
  connectRedis,
  createContentShards,
  enqueueContentEvents,
  type ContentQueue,
  type ContentShards,
} from '@ingest/queue';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from './support/test-database.js';
import { newTestTag } from './support/test-env.js';

const tag = newTestTag();
const prefix = `test:${tag}`;
const POLICY = { attempts: 3, backoffMs: 100, keepCompletedSeconds: 60, keepFailedSeconds: 60 };
let redis: Redis;
let shards: ContentShards;
let queue: ContentQueue;
beforeAll(async () => {
  redis = await connectRedis(TEST_REDIS_URL, 'producer', `test-fair-order-${tag}`);
  shards = createContentShards(redis, { keyPrefix: prefix, queueShards: 1, cluster: null });
  queue = shards.all[0]!;
});
beforeEach(async () => {
  await queue.obliterate({ force: true });
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
});
afterAll(async () => {
  await queue?.obliterate({ force: true });
  await queue?.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
});

const accounts = { a: randomUUID(), b: randomUUID(), c: randomUUID() };
type Name = keyof typeof accounts;
const nameOf = new Map<string, Name>(
  Object.entries(accounts).map(([name, id]) => [id, name as Name]),
);

/** Queues `count` events of an account, in batches as the API's group commit does. */
async function publish(name: Name, count: number, weight = 1): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (let i = 0; i < ids.length; i += 100) {
    await enqueueContentEvents(
      shards,
      ids.slice(i, i + 100).map((eventId) => ({
        event: 'article.create' as const,
        data: { eventId, requestId: 'r', accountId: accounts[name] },
        weight,
      })),
      POLICY,
    );
  }
  return ids;
}

/** The accounts of the queued jobs, in the order a worker will take them. */
async function takingOrder(): Promise<Name[]> {
  const jobs = await queue.getPrioritized(0, -1);
  return jobs.map((job) => nameOf.get(job.data.accountId ?? '')!);
}

const countIn = (order: Name[], name: Name) => order.filter((each) => each === name).length;

describe('the fair order of the content queue', () => {
  it("puts an account with nothing queued at the head, whatever another's backlog", async () => {
    await publish('a', 2_000);
    await publish('b', 1);
    const order = await takingOrder();
    expect(order).toHaveLength(2_001);
    // Behind at most the head level's share of a: EVENTS_PER_LEVEL jobs.
    expect(order.indexOf('b')).toBeLessThanOrEqual(EVENTS_PER_LEVEL);
  });

  it('keeps each account in the order it was queued', async () => {
    const a = await publish('a', 300);
    const b = await publish('b', 300);
    const jobs = await queue.getPrioritized(0, -1);
    const ofA = jobs.filter((job) => job.data.accountId === accounts.a).map((job) => job.id);
    const ofB = jobs.filter((job) => job.data.accountId === accounts.b).map((job) => job.id);
    expect(ofA).toEqual(a);
    expect(ofB).toEqual(b);
  });

  it('interleaves backlogged accounts in turns, in proportion to their weights', async () => {
    await publish('a', 600);
    await publish('b', 600);
    await publish('c', 600, 3);
    const first = (await takingOrder()).slice(0, 500);
    // Weights 1:1:3 over the first 500 taken: 100, 100, 300, give or take a level of each.
    const slack = 3 * EVENTS_PER_LEVEL;
    expect(Math.abs(countIn(first, 'a') - 100)).toBeLessThanOrEqual(slack);
    expect(Math.abs(countIn(first, 'b') - 100)).toBeLessThanOrEqual(slack);
    expect(Math.abs(countIn(first, 'c') - 300)).toBeLessThanOrEqual(slack);
  });

  it('moves every level down when the head passes the rebase level, keeping the order', async () => {
    await publish('a', 400);
    await publish('b', 50);
    // Take a's first 80 jobs as a worker would: the head moves on to a later level.
    for (let i = 0; i < 80; i += 1) await redis.zpopmin(queue.keys.prioritized!);
    const before = (await queue.getPrioritized(0, -1)).map((job) => job.id);
    const headLevel = async () =>
      Math.floor(
        Number((await redis.zrange(queue.keys.prioritized!, 0, 0, 'WITHSCORES'))[1]) / 2 ** 32,
      );
    const levelBefore = await headLevel();
    expect(levelBefore).toBeGreaterThan(2);

    const shift = await rebaseFairOrder(queue, 2);
    expect(shift).toBeGreaterThan(0);
    expect(await headLevel()).toBe(levelBefore - shift);
    expect((await queue.getPrioritized(0, -1)).map((job) => job.id)).toEqual(before);
    // The priority stored in each job (what BullMQ reads when one comes back) moved too.
    const head = (await queue.getPrioritized(0, 0))[0]!;
    expect(Number(await redis.hget(`${queue.keys['']}${head.id}`, 'priority'))).toBe(
      levelBefore - shift,
    );
    // A newcomer still starts at the head, not behind the shifted backlog.
    await publish('c', 1);
    expect((await takingOrder()).indexOf('c')).toBeLessThanOrEqual(2 * EVENTS_PER_LEVEL);
    // Not due again at once.
    expect(await rebaseFairOrder(queue, 2)).toBeLessThanOrEqual(1);
  });
});

describe("an account's cap on events in flight", () => {
  it('holds at most `cap` slots, and hands a released one to the oldest waiter', async () => {
    const request = (jobId: string) => ({ accountId: accounts.a, jobId, cap: 2, lapseMs: 30_000 });
    expect(await acquireSlot(queue, request('j1'))).toBe(true);
    expect(await acquireSlot(queue, request('j2'))).toBe(true);
    expect(await acquireSlot(queue, request('j3'))).toBe(false);
    expect(await acquireSlot(queue, request('j4'))).toBe(false);
    // Taking it again is the same slot, not another.
    expect(await acquireSlot(queue, request('j1'))).toBe(true);
    // Another account's cap is its own.
    expect(await acquireSlot(queue, { ...request('k1'), accountId: accounts.b })).toBe(true);

    expect(await releaseSlot(queue, { accountId: accounts.a, jobId: 'j1', cap: 2 })).toEqual([
      'j3',
    ]);
    expect(await acquireSlot(queue, request('j3'))).toBe(true);
    expect(await acquireSlot(queue, request('j4'))).toBe(false);
  });

  it('lets a slot lapse when its holder never releases it (a worker that died)', async () => {
    const request = (jobId: string) => ({ accountId: accounts.a, jobId, cap: 1, lapseMs: 300 });
    expect(await acquireSlot(queue, request('dead'))).toBe(true);
    expect(await acquireSlot(queue, request('next'))).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await acquireSlot(queue, request('next'))).toBe(true);
  });
});
