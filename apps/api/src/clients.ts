import type { ApiConfig } from '@ingest/config';
import type { Database, ReadReplica } from '@ingest/db';
import type { Logger } from '@ingest/logger';
import type { ShareBook } from '@ingest/fairness';
import type { ContentShards, DeliveryQueue, RedisClient } from '@ingest/queue';

/**
 * The connections and settings the API starts from. The stateful services in deps.ts
 * are built on these alone, so they import this, not deps.ts (which imports them).
 */
export interface ApiClients {
  config: ApiConfig;
  db: Database;
  /** Where reads that need not be fresh go: a replica while it keeps up, else `db`. */
  replica: ReadReplica;
  /** A fail-fast (producer) connection, auto-pipelined, for rate limits and counters. */
  redis: RedisClient;
  /** The content-events queue's shards, on a fail-fast connection of their own. */
  queues: ContentShards;
  /** The webhook-deliveries queue (test pings, resends), on the same connection. */
  deliveryQueue: DeliveryQueue;
  /** Each account's share of the service (weight, in-flight cap), as operators set it. */
  shares: ShareBook;
  logger: Logger;
}
