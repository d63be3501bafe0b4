import type { EventLogStorage } from '@ingest/contracts';
import {
  Counter,
  createMetricsRegistry,
  registerEventLogStorage,
  registerQueueDepth,
  type EventLogFigures,
  type Registry,
} from '@ingest/observability';
import { readQueueDepth } from '@ingest/queue';
import type { ApiClients } from './clients.js';
import { eventLogStorage } from './services/admin/storage.js';

export interface ApiMetrics {
  registry: Registry;
  eventsAccepted: Counter<'event'>;
  eventsRejected: Counter<'code'>;
}

const figuresOf = (storage: EventLogStorage): EventLogFigures => ({
  tables: Object.entries(storage.totals).map(([table, total]) => ({
    table,
    bytes: total.sizeBytes,
    partitions: total.partitions,
  })),
  heldPartitions: storage.held.length,
  premadeUntilMs: storage.premadeUntil === null ? null : Date.parse(storage.premadeUntil),
});

/**
 * The API's Prometheus series. Request count and duration by route and status come from
 * fastify-metrics (plugins/metrics.ts); these are the ingestion's own. The event log's
 * storage is read from PostgreSQL here only, not in the workers: it is the same figure
 * from every process, and one source is enough.
 */
export function createApiMetrics(clients: Pick<ApiClients, 'queue' | 'db' | 'config'>): ApiMetrics {
  const registry = createMetricsRegistry('api');
  registerQueueDepth(registry, () => readQueueDepth(clients.queue));
  registerEventLogStorage(registry, async () => figuresOf(await eventLogStorage(clients)));
  return {
    registry,
    eventsAccepted: new Counter({
      name: 'ingest_events_accepted_total',
      help: 'Content events accepted (202), by event name',
      labelNames: ['event'],
      registers: [registry],
    }),
    eventsRejected: new Counter({
      name: 'ingest_events_rejected_total',
      help: 'Content events refused after authentication, by error code',
      labelNames: ['code'],
      registers: [registry],
    }),
  };
}
