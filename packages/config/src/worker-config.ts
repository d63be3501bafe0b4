import { z } from 'zod';
import { envInteger } from './env-fields.js';
import { SharedEnvSchema, sharedSettings } from './shared-env.js';
import { tracingSettings } from './tracing-env.js';

/** The queues a worker process can consume: content events, and webhook deliveries. */
export const WORKER_QUEUE_NAMES = ['content', 'deliveries'] as const;
export type WorkerQueueName = (typeof WORKER_QUEUE_NAMES)[number];

const WorkerEnvSchema = SharedEnvSchema.extend({
  WORKER_CONCURRENCY: envInteger(256, { min: 1, max: 1_000 }),
  /** How often the outbox reconciler looks for recorded events that never reached Redis. */
  RECONCILE_INTERVAL_MS: envInteger(5_000, { min: 100 }),
  /** How often a worker makes the event log's coming partitions and drops expired ones. */
  EVENT_LOG_MAINTENANCE_INTERVAL_MS: envInteger(60_000, { min: 1_000 }),
  /** Expired event-log periods one maintenance round drops; a backlog takes several rounds. */
  EVENT_LOG_DROPS_PER_ROUND: envInteger(1, { min: 1, max: 10_000 }),
  /**
   * Events of accounts whose retention is shorter than the longest in force that one
   * maintenance round deletes at most (2,000 a statement); a backlog takes several rounds.
   */
  EVENT_LOG_DELETES_PER_ROUND: envInteger(50_000, { min: 1, max: 10_000_000 }),
  /** How old a queued event must be before the reconciler checks on it. */
  RECONCILE_AFTER_MS: envInteger(10_000, { min: 100 }),
  /**
   * How long an account's erasure waits after it starts before its last sweep: longer than
   * an API process caches a key (API_KEY_CACHE_TTL_MS) plus its longest request.
   */
  ERASURE_SETTLE_MS: envInteger(30_000, { min: 0 }),
  /** On SIGTERM, how long jobs in flight may take to finish before they are handed back. */
  WORKER_SHUTDOWN_GRACE_MS: envInteger(25_000, { min: 0 }),
  /** While the database is unreachable, how long the worker waits before taking jobs again. */
  DATABASE_OUTAGE_PAUSE_MS: envInteger(2_000, { min: 100 }),
  /** A job whose worker stops renewing its lock for this long is handed to another worker. */
  WORKER_LOCK_DURATION_MS: envInteger(30_000, { min: 1_000 }),
  /** The worker's own HTTP port: health probes and /metrics (0: any free port). */
  WORKER_HTTP_HOST: z.string().trim().min(1).default('127.0.0.1'),
  WORKER_HTTP_PORT: envInteger(9464, { min: 0, max: 65535 }),
  /** Deliveries one worker process makes at once: each mostly waits on a receiver. */
  WORKER_DELIVERY_CONCURRENCY: envInteger(64, { min: 1, max: 1_000 }),
  /** Which queues this process consumes, so content work and deliveries can scale apart. */
  WORKER_QUEUES: z
    .string()
    .default('content,deliveries')
    .transform((value) => [...new Set(value.split(',').map((name) => name.trim()))])
    .pipe(
      z
        .array(z.enum(WORKER_QUEUE_NAMES, { error: 'must list content, deliveries or both' }))
        .min(1),
    ),
});

export const workerConfigFromEnv = WorkerEnvSchema.transform((env) => ({
  ...sharedSettings(env),
  worker: {
    concurrency: env.WORKER_CONCURRENCY,
    reconcileIntervalMs: env.RECONCILE_INTERVAL_MS,
    reconcileAfterMs: env.RECONCILE_AFTER_MS,
    eventLogMaintenanceIntervalMs: env.EVENT_LOG_MAINTENANCE_INTERVAL_MS,
    eventLogDropsPerRound: env.EVENT_LOG_DROPS_PER_ROUND,
    eventLogDeletesPerRound: env.EVENT_LOG_DELETES_PER_ROUND,
    shutdownGraceMs: env.WORKER_SHUTDOWN_GRACE_MS,
    databaseOutagePauseMs: env.DATABASE_OUTAGE_PAUSE_MS,
    lockDurationMs: env.WORKER_LOCK_DURATION_MS,
    queues: env.WORKER_QUEUES,
    deliveryConcurrency: env.WORKER_DELIVERY_CONCURRENCY,
    erasureSettleMs: env.ERASURE_SETTLE_MS,
  },
  http: { host: env.WORKER_HTTP_HOST, port: env.WORKER_HTTP_PORT },
  tracing: tracingSettings(env, 'ingest-worker'),
}));

export type WorkerConfig = z.output<typeof workerConfigFromEnv>;
