// The worker's wiring, in one place: the clients it talks to, the queue consumer, the
// maintenance loop, the HTTP port, and the order they close in. main.ts runs it as a
// process; tests can run the very same objects in theirs.
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkerConfig } from '@ingest/config';
import { createDatabase, readCustomShares, reportPoolerSessions } from '@ingest/db';
import { createArchiver } from '@ingest/event-archive';
import { createCategoryCache } from '@ingest/events';
import { createShareBook } from '@ingest/fairness';
import { createLogger, type Logger } from '@ingest/logger';
import { traceLogging } from '@ingest/observability';
import {
  bullPrefix,
  createContentShards,
  createDeliveryQueue,
  createMinuteCounters,
  createRedisConnection,
  queueTelemetry,
  deliveryBackoff,
  lockOptions,
  RetryDeliveryLater,
  warnUnlessNoEviction,
  type ContentJobData,
  type DeliveryJobData,
} from '@ingest/queue';
import { Worker } from 'bullmq';
import { createEndpointLimiter } from '@ingest/webhook-delivery';
import { createDeliveryJobProcessor } from './deliveries/deliver-job.js';
import type { WorkerDeps } from './deps.js';
import { createEventJobProcessor } from './content/event-job.js';
import { buildWorkerHttpServer } from './http-server.js';
import { startBacklogSampler } from './backlog-sampler.js';
import { startMaintenanceLoop } from './maintenance-loop.js';
import { startPartitionUpkeep } from './partition-upkeep.js';
import { createWorkerMetrics } from './metrics.js';

export interface WorkerRuntimeOptions {
  /** Where the worker logs; a logger at the configured level on stdout by default. */
  logger?: Logger;
  /** Prefix of the Redis connections' names (CLIENT LIST), `ingest-worker` by default. */
  connectionName?: string;
}

/**
 * How a close ended. `abandoned`: the grace period ran out with jobs still running; they
 * are handed back to the queue, and the connections they hold stay open, so the process
 * should exit now.
 */
export type WorkerClosed = 'closed' | 'abandoned';

export interface WorkerRuntime {
  deps: WorkerDeps;
  /** The BullMQ consumers of the queues in WORKER_QUEUES, already taking jobs. */
  consumers: Array<Worker<ContentJobData> | Worker<DeliveryJobData>>;
  /** Where the HTTP port (health, /metrics) listens, e.g. `http://127.0.0.1:9464`. */
  httpAddress: string;
  /**
   * Takes no new jobs and gives those in flight `graceMs` (WORKER_SHUTDOWN_GRACE_MS by
   * default) to finish, then closes everything else. Rejects if closing failed.
   */
  close: (graceMs?: number) => Promise<WorkerClosed>;
}

export async function createWorkerRuntime(
  config: WorkerConfig,
  options: WorkerRuntimeOptions = {},
): Promise<WorkerRuntime> {
  const logger =
    options.logger ??
    createLogger({
      level: config.log.level,
      name: 'worker',
      ...traceLogging(config.tracing),
    });
  const name = options.connectionName ?? 'ingest-worker';
  const db = createDatabase(config.database);
  await reportPoolerSessions(db, logger);
  const queueConnection = createRedisConnection(config.redis, 'worker', `${name}-queue`);
  const workerConnection = createRedisConnection(config.redis, 'worker', name);
  const deliveryConnection = createRedisConnection(config.redis, 'worker', `${name}-deliveries`);
  await warnUnlessNoEviction(queueConnection, logger);
  // BullMQ's spans, and the trace context each job carries: a job's spans continue the
  // trace of the request that accepted its event.
  const telemetry = queueTelemetry(config.tracing);
  const queues = createContentShards(queueConnection, config.redis, { telemetry });
  for (const queue of queues.all) {
    queue.on('error', (error) => logger.warn({ err: error }, 'queue connection error'));
  }
  const deliveryQueue = createDeliveryQueue(queueConnection, config.redis, { telemetry });
  deliveryQueue.on('error', (error) => logger.warn({ err: error }, 'queue connection error'));
  const deps: WorkerDeps = {
    config,
    db,
    queues,
    deliveryQueue,
    redis: queueConnection,
    counters: createMinuteCounters(queueConnection, config.redis.keyPrefix, ['applied', 'failed']),
    metrics: createWorkerMetrics(queues),
    categoryCache: createCategoryCache(),
    shares: await createShareBook({
      load: () => readCustomShares(db.pool),
      onError: (error) => logger.warn({ err: error }, 'could not read the accounts shares'),
    }),
    logger,
  };

  const consumes = config.worker.queues;
  // While the database is away, every shard's consumer pauses, not only the one whose job
  // found it away: the others would only fail their jobs too.
  const processEventJob = createEventJobProcessor(deps, async () => {
    await Promise.all(
      contentWorkers.map((worker) => worker.rateLimit(config.worker.databaseOutagePauseMs)),
    );
  });
  // One consumer a shard, each taking up to WORKER_CONCURRENCY jobs: a backlog in one
  // shard never holds the others' jobs back.
  const contentWorkers = !consumes.includes('content')
    ? []
    : queues.all.map(
        (queue) =>
          new Worker<ContentJobData>(queue.name, processEventJob, {
            connection: workerConnection,
            prefix: bullPrefix(config.redis.keyPrefix),
            telemetry,
            concurrency: config.worker.concurrency,
            ...lockOptions(config.worker.lockDurationMs),
          }),
      );
  const deliveryWorker = consumes.includes('deliveries')
    ? new Worker<DeliveryJobData>(
        deliveryQueue.name,
        createDeliveryJobProcessor({
          ...deps,
          limiter: createEndpointLimiter(queueConnection, config.redis.keyPrefix),
        }),
        {
          connection: deliveryConnection,
          prefix: bullPrefix(config.redis.keyPrefix),
          telemetry,
          concurrency: config.worker.deliveryConcurrency,
          ...lockOptions(config.worker.lockDurationMs),
          settings: { backoffStrategy: deliveryBackoff(config.webhooks.retryScheduleMs) },
        },
      )
    : undefined;
  // A failed attempt is recorded on its delivery; any other failure of a delivery job
  // (the database, say) would otherwise leave no trace.
  deliveryWorker?.on('failed', (job, error) => {
    if (error instanceof RetryDeliveryLater) return;
    logger.warn({ err: error, deliveryId: job?.data.deliveryId }, 'delivery job failed');
  });
  const consumers = [...contentWorkers, deliveryWorker].filter((w) => w !== undefined);
  // Connection errors repeat while Redis is away; BullMQ reconnects by itself.
  for (const consumer of consumers) {
    consumer.on('error', (error) => logger.warn({ err: error }, 'worker error'));
  }
  const maintenance = startMaintenanceLoop(deps);
  const sampler = startBacklogSampler(deps, queueConnection);
  const { archiveDir } = config.eventLog;
  const partitionUpkeep = startPartitionUpkeep(
    deps,
    archiveDir === null ? undefined : createArchiver(db.pool, archiveDir),
  );
  const httpServer = buildWorkerHttpServer(deps, () => queueConnection.ping());

  /** Everything after the consumer, in order: nothing below it is in use any more. */
  async function closeTheRest(): Promise<void> {
    await processEventJob.drain(); // successors woken by the last jobs
    await maintenance.stop();
    await sampler.stop();
    await partitionUpkeep.stop();
    deps.shares.close();
    await deps.counters.stopAll();
    await httpServer.close();
    await queues.close();
    await deliveryQueue.close();
    await db.close();
    await Promise.all([queueConnection.quit(), workerConnection.quit(), deliveryConnection.quit()]);
  }

  async function closeInOrder(graceMs: number): Promise<WorkerClosed> {
    const grace = new AbortController();
    const finished = await Promise.race([
      Promise.all(consumers.map((consumer) => consumer.close())).then(() => true),
      sleep(graceMs, false, { signal: grace.signal }).catch(() => false),
    ]);
    grace.abort(); // a pending grace timer would keep the process alive after a clean close
    if (!finished) {
      // Jobs still running are abandoned, not lost: their transactions roll back with our
      // connections, and BullMQ hands them to another worker once their locks lapse.
      logger.warn('grace period over: handing the jobs in flight back to the queue');
      return 'abandoned';
    }
    await closeTheRest();
    return 'closed';
  }

  let httpAddress: string;
  try {
    httpAddress = await httpServer.listen({ host: config.http.host, port: config.http.port });
  } catch (error) {
    // No runtime to hand back, so nobody else could close what is open already.
    await Promise.all(consumers.map((consumer) => consumer.close()));
    await closeTheRest();
    throw error;
  }

  let closed: Promise<WorkerClosed> | undefined;
  return {
    deps,
    consumers,
    httpAddress,
    close: (graceMs = config.worker.shutdownGraceMs) => (closed ??= closeInOrder(graceMs)),
  };
}
