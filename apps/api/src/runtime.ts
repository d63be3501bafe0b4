// The API's wiring, in one place: the clients it talks to, the stateful services built on
// them, the Fastify app, and the order they close in. server.ts runs it as a process;
// the tests, the fault suite and the bench get the very same objects.
import type { ApiConfig } from '@ingest/config';
import {
  createDatabase,
  createReadReplica,
  readCustomShares,
  reportPoolerSessions,
} from '@ingest/db';
import { premakeAhead } from '@ingest/event-log';
import { createFairAdmission, createRefusalReport, createShareBook } from '@ingest/fairness';
import { createLogger, type Logger } from '@ingest/logger';
import { traceLogging } from '@ingest/observability';
import {
  connectRedis,
  createContentShards,
  createDeliveryQueue,
  createMinuteCounters,
  queueTelemetry,
  warnUnlessNoEviction,
  type RedisClient,
} from '@ingest/queue';
import { buildApp } from './app.js';
import type { ApiDeps } from './deps.js';
import { createApiMetrics } from './metrics.js';
import { createCallRecorder } from './publish/call-recorder.js';
import { createApiKeyAuthenticator } from './services/api-key-auth.js';
import { createEventWaiter } from './publish/event-waiter.js';

export type ApiApp = Awaited<ReturnType<typeof buildApp>>;

/** Refusals are summed up in one log line this often at most. */
const REFUSAL_LOG_INTERVAL_MS = 5_000;
/** How often the read replica's lag is read (DATABASE_READ_MAX_LAG_MS bounds it). */
const REPLICA_CHECK_INTERVAL_MS = 1_000;

export interface ApiRuntimeOptions {
  /** Where the API logs; a logger at the configured level on stdout by default. */
  logger?: Logger;
  /** Prefix of the Redis connections' names (CLIENT LIST), `ingest-api` by default. */
  connectionName?: string;
  /**
   * Runs once the app and its background work have stopped, before the connections
   * close: the last moment `deps.db` and `deps.redis` still answer (tests clean up here).
   */
  beforeDisconnect?: (deps: ApiDeps) => Promise<void>;
}

export interface ApiRuntime {
  deps: ApiDeps;
  /** The app, not yet listening: `listen()` it, or `inject()` requests into it. */
  app: ApiApp;
  /** Stops taking requests, finishes those in flight, then closes every connection. */
  close: () => Promise<void>;
}

export async function createApiRuntime(
  config: ApiConfig,
  options: ApiRuntimeOptions = {},
): Promise<ApiRuntime> {
  const logger =
    options.logger ??
    createLogger({
      level: config.log.level,
      name: 'api',
      ...traceLogging(config.tracing),
    });
  const name = options.connectionName ?? 'ingest-api';
  const db = createDatabase(config.database);
  await reportPoolerSessions(db, logger);
  // Rate limits send one command per request: auto-pipelining writes the commands of
  // requests handled in the same turn of the event loop together, one socket write for
  // many. BullMQ keeps a connection of its own, without it (bull's users reported
  // misbehaviour with auto-pipelining on queue connections).
  const redis = await connectRedis(config.redis, 'producer', name, {
    enableAutoPipelining: true,
  });
  await warnUnlessNoEviction(redis, logger);
  const queueConnection = await connectRedis(config.redis, 'producer', `${name}-queue`);
  // Enqueueing fails fast when Redis is away; the outbox reconciler catches up later.
  const telemetry = queueTelemetry(config.tracing);
  const queues = createContentShards(queueConnection, config.redis, {
    skipWaitingForReady: true,
    telemetry,
  });
  for (const queue of queues.all) {
    queue.on('error', (error) => logger.warn({ err: error }, 'queue connection error'));
  }
  const deliveryQueue = createDeliveryQueue(queueConnection, config.redis, {
    skipWaitingForReady: true,
    telemetry,
  });
  deliveryQueue.on('error', (error) => logger.warn({ err: error }, 'queue connection error'));

  const shares = await createShareBook({
    load: () => readCustomShares(db.pool),
    onError: (error) => logger.warn({ err: error }, 'could not read the accounts shares'),
  });
  const replica = createReadReplica({
    primary: db,
    ...(config.readReplica.url === null
      ? {}
      : {
          // Reached directly: the primary's direct URL is not this database's.
          replica: createDatabase({
            ...config.database,
            url: config.readReplica.url,
            directUrl: undefined,
          }),
        }),
    maxLagMs: config.readReplica.maxLagMs,
    checkEveryMs: REPLICA_CHECK_INTERVAL_MS,
    onSwitch: (to, why) =>
      to === 'replica'
        ? logger.info(why, 'reads that need not be fresh go to the read replica')
        : logger.warn(
            { lagSeconds: why.lagSeconds, err: why.error },
            'read replica unreachable or behind: every read goes to the primary',
          ),
  });
  const clients = { config, db, replica, redis, queues, deliveryQueue, shares, logger };
  const admission = createFairAdmission(config.admission);
  const metrics = createApiMetrics(clients, admission);
  const counters = createMinuteCounters(redis, config.redis.keyPrefix, [
    'accepted',
    'rejected',
    'refused',
  ]);
  const deps: ApiDeps = {
    ...clients,
    metrics,
    admission,
    refusals: createRefusalReport({
      logger,
      intervalMs: REFUSAL_LOG_INTERVAL_MS,
      context: () => ({ admission: admission.state(), busiest: admission.busiest(3) }),
      onRefused: (reason, accountId) => {
        metrics.requestsRefused.inc({ reason });
        counters.refused.increment(1, accountId, reason);
      },
    }),
    waiter: createEventWaiter(config.database.directUrl, logger),
    counters,
    recorder: createCallRecorder(clients),
    apiKeys: createApiKeyAuthenticator(clients),
  };
  const app = await buildApp(deps);
  // Workers keep the coming week's partitions made; this covers a database fresh from
  // its migrations, before any worker ran. With the database down, start-up goes on: the
  // readiness check reports the outage, and the next start or worker round makes them.
  await premakeAhead(db.direct, config.eventLog.interval).catch((error: unknown) =>
    logger.warn({ err: error }, 'could not make the event log partitions ahead'),
  );

  let closed: Promise<void> | undefined;
  async function closeInOrder(): Promise<void> {
    await app.close(); // requests in flight finish first
    admission.close();
    shares.close();
    await deps.recorder.drain(); // calls they handed in are written
    await deps.counters.stopAll();
    await deps.waiter.close();
    await options.beforeDisconnect?.(deps);
    await queues.close();
    await deliveryQueue.close();
    await replica.close();
    await db.close();
    await Promise.all([quitRedis(queueConnection), quitRedis(redis)]);
  }
  return {
    deps,
    app,
    close: () => (closed ??= closeInOrder()),
  };
}

/**
 * QUIT when Redis answers, so that replies in flight arrive; a connection that is down
 * (Redis restarting) is dropped, or shutting down would wait for a Redis that may not come.
 */
async function quitRedis(connection: RedisClient): Promise<void> {
  if (connection.status !== 'ready') return connection.disconnect();
  await connection.quit().catch(() => connection.disconnect());
}
