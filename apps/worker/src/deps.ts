import type { WorkerConfig } from '@ingest/config';
import type { Database } from '@ingest/db';
import type { Logger } from '@ingest/logger';
import type { ShareBook } from '@ingest/fairness';
import type { ContentShards, DeliveryQueue, MinuteCounters, RedisClient } from '@ingest/queue';
import type { WorkerMetrics } from './metrics.js';
import type { CategoryCache } from '@ingest/events';

/** Everything the worker needs from outside; runtime.ts builds it, tests may build their own. */
export interface WorkerDeps {
  config: WorkerConfig;
  db: Database;
  /**
   * The content queue's shards: for re-queueing by the outbox reconciler, waking parked
   * jobs, the accounts' in-flight caps and the fair order's upkeep.
   */
  queues: ContentShards;
  /** The queues' connection, for what is kept in Redis beside them (an erasure's sweep). */
  redis: RedisClient;
  /** For the deliveries that applied changes record, and their reconciler. */
  deliveryQueue: DeliveryQueue;
  /** Events applied and failed for good per minute, for the operators' history. */
  counters: MinuteCounters<'applied' | 'failed'>;
  /** Prometheus series served at /metrics on the worker's HTTP port. */
  metrics: WorkerMetrics;
  /** Category ids seen committed, shared by this runtime's transactions only. */
  categoryCache: CategoryCache;
  /** Each account's share of the workers (weight, in-flight cap), as operators set it. */
  shares: ShareBook;
  logger: Logger;
}
