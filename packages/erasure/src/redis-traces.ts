import type { JobType, Queue } from 'bullmq';
import { Cluster, type Redis } from 'ioredis';

const PAGE = 500;
/** Job states whose jobs carry their account in their data until they are removed. */
const JOB_STATES: JobType[] = ['completed', 'failed', 'delayed', 'waiting', 'prioritized'];

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
 * state that keeps them. Returns how many keys, members and jobs went. It reads every
 * hash and sorted set under the prefix: the cost of a rare erasure, not of every event.
 */
export async function eraseRedisTraces(
  redis: Redis | Cluster,
  prefix: string,
  queues: readonly Queue[],
  accountId: string,
): Promise<{ keys: number; members: number; jobs: number }> {
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
  for (const queue of queues) {
    for (let start = 0; ; start += PAGE) {
      const page = await queue.getJobs(JOB_STATES, start, start + PAGE - 1, true);
      if (page.length === 0) break;
      const theirs = page.filter(
        (job) => (job?.data as { accountId?: unknown } | undefined)?.accountId === accountId,
      );
      let removed = 0;
      for (const job of theirs) {
        // A job a worker holds cannot be removed; the next round finds it finished.
        if (
          await job.remove().then(
            () => true,
            () => false,
          )
        )
          removed += 1;
      }
      jobs += removed;
      // Removed jobs leave the listing: the next page starts that many earlier.
      start -= removed;
    }
  }
  return { keys, members, jobs };
}
