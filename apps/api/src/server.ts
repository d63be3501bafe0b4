// Composition root of the API process: configuration, clients, app, listen, shutdown.
import { loadApiConfig, loadConfigOrExit } from '@ingest/config';
import { checkDatabase, createDatabase } from '@ingest/db';
import { createLogger } from '@ingest/logger';
import { exitUnlessServicesAnswer } from '@ingest/observability';
import {
  checkRedis,
  connectRedis,
  createContentQueue,
  createMinuteCounter,
  warnUnlessNoEviction,
} from '@ingest/queue';
import { buildApp } from './app.js';
import { createApiMetrics } from './metrics.js';
import { createEventWaiter } from './services/event-waiter.js';

const config = loadConfigOrExit(loadApiConfig);
const logger = createLogger({ level: config.log.level, name: 'api' });
// A service that does not answer is one clear line and exit code 1, not a stack trace.
await exitUnlessServicesAnswer('api', [
  checkDatabase(config.database.url),
  checkRedis(config.redis.url),
]);

const db = createDatabase({
  url: config.database.url,
  poolSize: config.database.poolSize,
  statementTimeoutMs: config.database.statementTimeoutMs,
});
// Rate limits send one command per request: auto-pipelining writes the commands of
// requests handled in the same turn of the event loop together, one socket write for
// many. BullMQ keeps a connection of its own, without it (bull's users reported
// misbehaviour with auto-pipelining on queue connections).
const redis = await connectRedis(config.redis.url, 'producer', 'ingest-api', {
  enableAutoPipelining: true,
});
await warnUnlessNoEviction(redis, logger);
const queueConnection = await connectRedis(config.redis.url, 'producer', 'ingest-api-queue');
// Enqueueing fails fast when Redis is away; the outbox reconciler catches up later.
const queue = createContentQueue(queueConnection, config.redis.keyPrefix, {
  skipWaitingForReady: true,
});
queue.on('error', (error) => logger.warn({ err: error }, 'queue connection error'));
const waiter = createEventWaiter(config.database.url, logger);
const acceptedCounter = createMinuteCounter(redis, config.redis.keyPrefix, 'accepted');
const metrics = createApiMetrics(queue);
const app = await buildApp({ config, db, redis, queue, waiter, acceptedCounter, metrics, logger });

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
  try {
    await app.close();
    await acceptedCounter.stop();
    await waiter.close();
    await queue.close();
    await db.close();
    await queueConnection.quit();
    await redis.quit();
    logger.info('shut down cleanly');
  } catch (error) {
    logger.error({ err: error }, 'error while shutting down');
    process.exitCode = 1;
  }
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ host: config.http.host, port: config.http.port });
