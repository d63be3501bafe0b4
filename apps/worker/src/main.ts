// Composition root of the worker process: configuration, clients, the queue consumer,
// the outbox reconciler, and an orderly shutdown.
import { ConfigError, loadWorkerConfig, type WorkerConfig } from '@ingest/config';
import { createEventSchemas } from '@ingest/contracts';
import { checkDatabase, createDatabase } from '@ingest/db';
import { createLogger } from '@ingest/logger';
import {
  bullPrefix,
  checkRedis,
  CONTENT_EVENTS_QUEUE,
  createContentQueue,
  createRedisConnection,
  type ContentJobData,
} from '@ingest/queue';
import { Worker } from 'bullmq';
import type { WorkerDeps } from './deps.js';
import { createEventJobProcessor } from './event-job.js';
import { startOutboxReconciler } from './outbox-reconciler.js';

function loadConfigOrExit(): WorkerConfig {
  try {
    return loadWorkerConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

const config = loadConfigOrExit();
const logger = createLogger({ level: config.log.level, name: 'worker' });

try {
  await Promise.all([checkDatabase(config.database.url), checkRedis(config.redis.url)]);
} catch (error) {
  console.error(`worker: cannot start: ${(error as Error).message}`);
  process.exit(1);
}

const db = createDatabase({
  url: config.database.url,
  poolSize: config.database.poolSize,
  statementTimeoutMs: config.database.statementTimeoutMs,
});
const queueConnection = createRedisConnection(config.redis.url, 'worker', 'ingest-worker-queue');
const workerConnection = createRedisConnection(config.redis.url, 'worker', 'ingest-worker');
const queue = createContentQueue(queueConnection, config.redis.keyPrefix);
const deps: WorkerDeps = { config, db, queue, schemas: createEventSchemas(config.content), logger };

const worker = new Worker<ContentJobData>(CONTENT_EVENTS_QUEUE, createEventJobProcessor(deps), {
  connection: workerConnection,
  prefix: bullPrefix(config.redis.keyPrefix),
  concurrency: config.worker.concurrency,
  // A job whose worker died is handed to another after the lock lapses; BullMQ's default
  // of 1 would fail it for good after a second such death. The reconciler backs this up.
  maxStalledCount: 5,
});
worker.on('error', (error) => logger.error({ err: error }, 'worker error'));
const reconciler = startOutboxReconciler(deps);
logger.info({ concurrency: config.worker.concurrency }, 'worker ready');

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info({ signal }, 'shutting down: taking no new jobs, finishing those in flight');
  try {
    await worker.close();
    await reconciler.stop();
    await queue.close();
    await db.close();
    await Promise.all([queueConnection.quit(), workerConnection.quit()]);
    logger.info('shut down cleanly');
  } catch (error) {
    logger.error({ err: error }, 'error while shutting down');
    process.exitCode = 1;
  }
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
