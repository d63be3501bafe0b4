import type { RedisClient } from './redis-connection.js';

/**
 * Redis's maxmemory-policy, or undefined when the server will not say (managed Redis
 * often disables CONFIG). Anything but `noeviction` lets Redis drop queued jobs under
 * memory pressure; the outbox reconciler would recover them, late.
 */
export async function evictionPolicyOf(redis: RedisClient): Promise<string | undefined> {
  try {
    const reply = await redis.config('GET', 'maxmemory-policy');
    return Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : undefined;
  } catch {
    return undefined;
  }
}

/** Logs loudly at start-up when Redis may evict jobs. */
export async function warnUnlessNoEviction(
  redis: RedisClient,
  log: { warn: (object: object, message: string) => void },
): Promise<void> {
  const policy = await evictionPolicyOf(redis);
  if (policy !== undefined && policy !== 'noeviction') {
    log.warn(
      { maxmemoryPolicy: policy },
      'REDIS MAY EVICT QUEUED JOBS: set maxmemory-policy to noeviction (CONFIG SET maxmemory-policy noeviction); until then, evicted events are recovered only by the outbox reconciler',
    );
  }
}
