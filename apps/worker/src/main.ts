// Composition root of the worker process: configuration, clients, the queue consumer,
// the maintenance loop (outbox reconciler), and an orderly shutdown.
import { setTimeout as sleep } from 'node:timers/promises';
import { loadWorkerConfig, loadConfigOrExit } from '@ingest/config';
import { createEventSchemas } from '@ingest/contracts';
import { checkDatabase, createDatabase } from '@ingest/db';
import { createLogger } from '@ingest/logger';
import { exitUnlessServicesAnswer } from '@ingest/observability';
import {
  bullPrefix,
  checkRedis,
  CONTENT_EVENTS_QUEUE,
  createContentQueue,
  createMinuteCounter,
  createRedisConnection,
  warnUnlessNoEviction,
  type ContentJobData,
} from '@ingest/queue';
import { Worker } from 'bullmq';
import type { WorkerDeps } from './deps.js';
import { createEventJobProcessor } from './event-job.js';
import { buildWorkerHttpServer } from './http-server.js';
import { startMaintenanceLoop } from './maintenance-loop.js';
import { createWorkerMetrics } from './metrics.js';

const config = loadConfigOrExit(loadWorkerConfig);
const logger = createLogger({ level: config.log.level, name: 'worker' });

await exitUnlessServicesAnswer('worker', [
  checkDatabase(config.database.url),
  checkRedis(config.redis.url),
]);

const db = createDatabase({
  url: config.database.url,
  poolSize: config.database.poolSize,
  statementTimeoutMs: config.database.statementTimeoutMs,
});
const queueConnection = createRedisConnection(config.redis.url, 'worker', 'ingest-worker-queue');
const workerConnection = createRedisConnection(config.redis.url, 'worker', 'ingest-worker');
await warnUnlessNoEviction(queueConnection, logger);
const queue = createContentQueue(queueConnection, config.redis.keyPrefix);
queue.on('error', (error) => logger.warn({ err: error }, 'queue connection error'));
const appliedCounter = createMinuteCounter(queueConnection, config.redis.keyPrefix, 'applied');
const deps: WorkerDeps = {
  config,
  db,
  queue,
  schemas: createEventSchemas(config.content),
  appliedCounter,
  metrics: createWorkerMetrics(queue),
  logger,
};

const processEventJob = createEventJobProcessor(deps, () =>
  worker.rateLimit(config.worker.databaseOutagePauseMs),
);
const worker: Worker<ContentJobData> = new Worker<ContentJobData>(
  CONTENT_EVENTS_QUEUE,
  processEventJob,
  {
    connection: workerConnection,
    prefix: bullPrefix(config.redis.keyPrefix),
    concurrency: config.worker.concurrency,
    lockDuration: config.worker.lockDurationMs,
    stalledInterval: config.worker.lockDurationMs,
    // A job whose worker died is handed to another after its lock lapses; BullMQ's
    // default of 1 would fail it for good after a second such death. The outbox
    // reconciler retries any that still end up failed this way.
    maxStalledCount: 5,
  },
);
// Connection errors repeat while Redis is away; BullMQ reconnects by itself.
worker.on('error', (error) => logger.warn({ err: error }, 'worker error'));
const maintenance = startMaintenanceLoop(deps);
const httpServer = buildWorkerHttpServer(deps, () => queueConnection.ping());
const httpAddress = await httpServer.listen({ host: config.http.host, port: config.http.port });
logger.info({ concurrency: config.worker.concurrency, http: httpAddress }, 'worker ready');

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  const graceMs = config.worker.shutdownGraceMs;
  logger.info({ signal, graceMs }, 'shutting down: taking no new jobs, finishing those in flight');
  const grace = new AbortController();
  const finished = await Promise.race([
    worker.close().then(() => true),
    sleep(graceMs, false, { signal: grace.signal }).catch(() => false),
  ]);
  grace.abort(); // a pending grace timer would keep the process alive after a clean close
  if (!finished) {
    // Jobs still running are abandoned, not lost: their transactions roll back with our
    // connections, and BullMQ hands them to another worker once their locks lapse.
    logger.warn('grace period over: handing the jobs in flight back to the queue');
    process.exit(0);
  }
  try {
    await processEventJob.drain(); // successors woken by the last jobs
    await maintenance.stop();
    await appliedCounter.stop();
    await httpServer.close();
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
