import type { ApiConfig } from '@ingest/config';
import type { Database } from '@ingest/db';
import type { Logger } from '@ingest/logger';
import type { ContentQueue, MinuteCounter } from '@ingest/queue';
import type { Redis } from 'ioredis';
import type { ApiMetrics } from './metrics.js';
import type { EventWaiter } from './services/event-waiter.js';

/** Everything the API needs from outside; server.ts builds it, tests build their own. */
export interface ApiDeps {
  config: ApiConfig;
  db: Database;
  /** A fail-fast (producer) connection, auto-pipelined, for rate limits and counters. */
  redis: Redis;
  /** The content-events queue, on a fail-fast connection of its own. */
  queue: ContentQueue;
  /** Lets `Prefer: wait` requests hear when their event is finished. */
  waiter: EventWaiter;
  /** Events accepted per minute, for the operators' throughput chart. */
  acceptedCounter: MinuteCounter;
  /** Prometheus series served at /metrics. */
  metrics: ApiMetrics;
  logger: Logger;
}
