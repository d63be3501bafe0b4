import { redactUrlPassword } from '@ingest/config';
import { openRedis, type RedisTarget } from './redis-connection.js';

const describe = (target: RedisTarget): string =>
  target.cluster === null
    ? `Redis at ${redactUrlPassword(target.url)}`
    : `Redis Cluster at ${target.cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',')}`;

const advice = (target: RedisTarget): string =>
  target.cluster === null
    ? 'start it (`docker compose up -d redis`, or `redis-server`) or set REDIS_URL'
    : 'check that its nodes are up and that REDIS_CLUSTER_NODES names them';

/** One try, no retries, connected by the caller: for checks at start-up. */
export const probe = (target: RedisTarget, timeoutMs: number) =>
  openRedis(
    target,
    {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    },
    { lazyConnect: true, clusterRetryStrategy: () => null },
  );

/**
 * Resolves when Redis answers PING within `timeoutMs`; otherwise rejects with an Error
 * whose message is one line saying what is wrong and how to fix it.
 */
export async function checkRedis(target: RedisTarget, timeoutMs = 3_000): Promise<void> {
  const redis = probe(target, timeoutMs);
  let lastError: Error | undefined;
  redis.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const reason =
      (lastError as { code?: string } | undefined)?.code ??
      lastError?.message ??
      (error as Error).message;
    throw new Error(`${describe(target)} is not answering (${reason}); ${advice(target)}`);
  } finally {
    redis.disconnect();
  }
}
