import { Writable } from 'node:stream';
import { buildApp } from '@ingest/api/app';
import type { ApiDeps } from '@ingest/api/deps';
import { loadApiConfig, type Env } from '@ingest/config';
import { createDatabase } from '@ingest/db';
import { createLogger } from '@ingest/logger';
import { connectRedis, createContentQueue, createMinuteCounter } from '@ingest/queue';
import { createEventWaiter } from '@ingest/api/event-waiter';
import { createApiMetrics } from '@ingest/api/metrics';
import { newTestTag, testEnv } from './test-env.js';

export type TestApp = Awaited<ReturnType<typeof buildApp>>;

export interface TestApi {
  app: TestApp;
  deps: ApiDeps;
  /** Tag of this API's data: its Redis prefix, and the domain of accounts made with it. */
  tag: string;
  /** Every log line the app wrote, as raw JSON text. */
  logLines: string[];
  close(): Promise<void>;
}

/** The real app on the test database and the machine's Redis, with its logs captured. */
export async function startTestApi(
  overrides: Env = {},
  beforeReady?: (app: TestApp) => void,
): Promise<TestApi> {
  const tag = newTestTag();
  const config = loadApiConfig(testEnv(tag, overrides));
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ level: config.log.level, name: 'api', destination });
  const db = createDatabase({
    url: config.database.url,
    poolSize: config.database.poolSize,
    statementTimeoutMs: config.database.statementTimeoutMs,
  });
  // As in server.ts: rate limits on an auto-pipelined connection, the queue on its own.
  const redis = await connectRedis(config.redis.url, 'producer', `test-api-${tag}`, {
    enableAutoPipelining: true,
  });
  const queueConnection = await connectRedis(config.redis.url, 'producer', `test-queue-${tag}`);
  const queue = createContentQueue(queueConnection, config.redis.keyPrefix, {
    skipWaitingForReady: true,
  });
  queue.on('error', (error) => logger.warn({ err: error }, 'queue connection error'));
  const waiter = createEventWaiter(config.database.url, logger);
  const acceptedCounter = createMinuteCounter(redis, config.redis.keyPrefix, 'accepted');
  const metrics = createApiMetrics(queue);
  const deps: ApiDeps = { config, db, redis, queue, waiter, acceptedCounter, metrics, logger };
  const app = await buildApp(deps);
  beforeReady?.(app);
  await app.ready();
  return {
    app,
    deps,
    tag,
    logLines,
    async close() {
      await app.close();
      await acceptedCounter.stop();
      await waiter.close();
      await queue.close();
      await db.prisma.account.deleteMany({ where: { email: { endsWith: `@${tag}.test` } } });
      const keys = await redis.keys(`${config.redis.keyPrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await db.close();
      queueConnection.disconnect();
      redis.disconnect();
    },
  };
}
