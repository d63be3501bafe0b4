import {
  Counter,
  createMetricsRegistry,
  registerQueueDepth,
  type Registry,
} from '@ingest/observability';
import { readQueueDepth, type ContentQueue } from '@ingest/queue';

export interface ApiMetrics {
  registry: Registry;
  eventsAccepted: Counter<'event'>;
  eventsRejected: Counter<'code'>;
}

/**
 * The API's Prometheus series. Request count and duration by route and status come from
 * fastify-metrics (plugins/metrics.ts); these are the ingestion's own.
 */
export function createApiMetrics(queue: ContentQueue): ApiMetrics {
  const registry = createMetricsRegistry('api');
  registerQueueDepth(registry, () => readQueueDepth(queue));
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
