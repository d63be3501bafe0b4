import { redactUrlPassword } from '@ingest/config';
import { Redis } from 'ioredis';

/**
 * Resolves when Redis answers PING within `timeoutMs`; otherwise rejects with an Error
 * whose message is one line saying what is wrong and how to fix it.
 */
export async function checkRedis(url: string, timeoutMs = 3_000): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
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
    throw new Error(
      `Redis at ${redactUrlPassword(url)} is not answering (${reason}); start it (\`docker compose up -d redis\`, or \`redis-server\`) or set REDIS_URL`,
    );
  } finally {
    redis.disconnect();
  }
}
