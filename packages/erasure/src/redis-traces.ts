import type { Queue } from 'bullmq';
import { Cluster, type Redis } from 'ioredis';
import { removeJobs, type RemovedJobs } from './queue-jobs.js';

const PAGE = 500;

type Node = Redis;
/** Where SCAN must run: each master of a cluster, or the one server. */
const nodesOf = (redis: Redis | Cluster): Node[] =>
  redis instanceof Cluster ? redis.nodes('master') : [redis];

/** Every key of `node` under `prefix` matching `pattern`, by SCAN (never KEYS). */
async function* scanKeys(node: Node, pattern: string, type?: string): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, keys] = type
      ? await node.scan(cursor, 'MATCH', pattern, 'COUNT', PAGE, 'TYPE', type)
      : await node.scan(cursor, 'MATCH', pattern, 'COUNT', PAGE);
    cursor = next;
    if (keys.length > 0) yield keys;
  } while (cursor !== '0');
}

/**
 * Removes what Redis holds of an account, under this deployment's prefix: keys whose name
 * holds its id (its in-flight slots, rate limits), hash fields and sorted-set members that
 * name it (the fair order, the per-minute history), and jobs whose data names it, in every
 * state. Returns how many keys, members and jobs went, and how many of its jobs a worker
 * held (`skipped`), which only a later sweep can remove. It reads every hash and sorted set
 * under the prefix: the cost of a rare erasure, not of every event.
 */
export async function eraseRedisTraces(
  redis: Redis | Cluster,
  prefix: string,
  queues: readonly Queue[],
  accountId: string,
): Promise<RemovedJobs & { keys: number; members: number }> {
  let keys = 0;
  let members = 0;
  for (const node of nodesOf(redis)) {
    for await (const named of scanKeys(node, `${prefix}:*${accountId}*`)) {
      for (const key of named) keys += await redis.del(key);
    }
    // Hash fields (the fair order's levels by account) and sorted-set members (the
    // per-minute history) that name it.
    for (const [type, scan, remove] of [
      ['hash', 'hscan', 'hdel'],
      ['zset', 'zscan', 'zrem'],
    ] as const) {
      for await (const found of scanKeys(node, `${prefix}:*`, type)) {
        for (const key of found) {
          let cursor = '0';
          do {
            const [next, pairs] = await redis[scan](key, cursor, 'MATCH', `*${accountId}*`);
            cursor = next;
            // Field and value, or member and score: the names are every other entry.
            const names = pairs.filter((_, i) => i % 2 === 0);
            if (names.length > 0) members += await redis[remove](key, ...names);
          } while (cursor !== '0');
        }
      }
    }
  }
  let jobs = 0;
  let skipped = 0;
  for (const queue of queues) {
    const removed = await removeJobs(queue, (page) =>
      page.filter(
        (job) => (job.data as { accountId?: unknown } | undefined)?.accountId === accountId,
      ),
    );
    jobs += removed.jobs;
    skipped += removed.skipped;
  }
  return { keys, members, jobs, skipped };
}
