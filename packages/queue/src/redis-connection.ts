import { once } from 'node:events';
import { Redis, type RedisOptions } from 'ioredis';

/**
 * What a connection is for decides how it behaves when Redis goes away:
 * - `producer` (the API enqueueing, rate limiting): fail fast, so a request gets an
 *   answer instead of hanging in ioredis's offline queue;
 * - `worker` (BullMQ workers and their blocking reads): retry forever, as BullMQ
 *   requires (`maxRetriesPerRequest: null`), so workers resume by themselves.
 */
export type RedisRole = 'producer' | 'worker';

const ROLE_OPTIONS: Record<RedisRole, RedisOptions> = {
  producer: { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 },
  worker: { enableOfflineQueue: true, maxRetriesPerRequest: null, connectTimeout: 5_000 },
};

/** Reconnect with capped back-off; never give up, a Redis restart must not need ours. */
const retryStrategy = (attempt: number): number => Math.min(50 * 2 ** attempt, 2_000);

export function createRedisConnection(
  url: string,
  role: RedisRole,
  connectionName: string,
  options: RedisOptions = {},
): Redis {
  const redis = new Redis(url, {
    ...ROLE_OPTIONS[role],
    ...options,
    connectionName,
    retryStrategy,
    lazyConnect: false,
  });
  // Connection errors are reported by the commands that fail; an unhandled 'error'
  // event would instead crash the process while ioredis is reconnecting.
  redis.on('error', () => {});
  return redis;
}

/**
 * A connection that has finished connecting. A producer connection refuses commands
 * until then (it has no offline queue), so a process must wait for this before serving.
 */
export async function connectRedis(
  url: string,
  role: RedisRole,
  connectionName: string,
  options: RedisOptions = {},
): Promise<Redis> {
  const redis = createRedisConnection(url, role, connectionName, options);
  if (redis.status !== 'ready') await once(redis, 'ready');
  return redis;
}
