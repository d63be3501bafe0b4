import { SECOND_MS, TRANSIENT_FAILURE_CODE, type ErrorCode } from '@ingest/contracts';
import type { EventRow } from '@ingest/event-log';
import {
  Counter,
  createMetricsRegistry,
  fromZero,
  Histogram,
  registerQueueDepth,
  type Registry,
} from '@ingest/observability';
import { readQueueDepth, type ContentShards } from '@ingest/queue';

/** What became of a job run: the `outcome` label of ingest_jobs_processed_total. */
export type JobOutcome =
  | 'succeeded'
  | 'failed'
  | 'retried'
  | 'duplicate'
  | 'waiting_for_order'
  | 'waiting_for_slot'
  | 'handed_back';

/**
 * The codes an event fails with as it is applied: its own faults, and PROCESSING_FAILED
 * once its attempts ran out on a cause outside it. Their series of
 * ingest_events_failed_total start at 0; any other code is counted from its first failure.
 */
const EVENT_FAILURE_CODES = [
  'ARTICLE_NOT_FOUND',
  'HIGHLIGHT_NOT_FOUND',
  'SLUG_TAKEN',
  'VERSION_CONFLICT',
  'VALIDATION_FAILED',
  'UNKNOWN_EVENT',
  TRANSIENT_FAILURE_CODE,
] as const satisfies readonly ErrorCode[];

export interface WorkerMetrics {
  registry: Registry;
  jobsProcessed: Counter<'event' | 'outcome'>;
  eventsFailed: Counter<'code'>;
  processingSeconds: Histogram<'event'>;
  lagSeconds: Histogram<'event'>;
  deliveryAttempts: Counter<'outcome'>;
  deliverySeconds: Histogram<'outcome'>;
  endpointsDisabled: Counter<'reason'>;
  endpointsPaused: Counter;
  requeued: Counter<'kind'>;
}

export function createWorkerMetrics(shards: ContentShards): WorkerMetrics {
  const registry = createMetricsRegistry('worker');
  registerQueueDepth(registry, () => readQueueDepth(shards.all));
  return {
    registry,
    jobsProcessed: new Counter({
      name: 'ingest_jobs_processed_total',
      help: 'Job runs by event and outcome (succeeded, failed, retried, duplicate, waiting_for_order, waiting_for_slot, handed_back)',
      labelNames: ['event', 'outcome'],
      registers: [registry],
    }),
    // By code alone: the codes are a closed set (ErrorCode), the events another; the
    // failure ratio by event is ingest_jobs_processed_total's.
    eventsFailed: fromZero(
      new Counter({
        name: 'ingest_events_failed_total',
        help: "Events failed for good, by error code: the event's own (ARTICLE_NOT_FOUND, SLUG_TAKEN, VERSION_CONFLICT, ...), or PROCESSING_FAILED when its attempts ran out on a cause outside it",
        labelNames: ['code'],
        registers: [registry],
      }),
      'code',
      EVENT_FAILURE_CODES,
    ),
    processingSeconds: new Histogram({
      name: 'ingest_job_processing_seconds',
      help: 'Time a worker spent on a job run, by event',
      labelNames: ['event'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    lagSeconds: new Histogram({
      name: 'ingest_event_lag_seconds',
      help: 'From the API accepting an event (or an operator replaying it) to its change being committed, by event',
      labelNames: ['event'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    deliveryAttempts: new Counter({
      name: 'ingest_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (succeeded, gone: a 410, failed: another status, no_answer, refused: the target policy)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    deliverySeconds: new Histogram({
      name: 'ingest_webhook_attempt_seconds',
      help: 'How long a webhook delivery attempt took, resolution to the end of the answer, by outcome',
      labelNames: ['outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
      registers: [registry],
    }),
    endpointsDisabled: fromZero(
      new Counter({
        name: 'ingest_webhook_endpoints_disabled_total',
        help: 'Webhook endpoints the service disabled, by reason (gone: a 410)',
        labelNames: ['reason'],
        registers: [registry],
      }),
      'reason',
      ['gone'],
    ),
    endpointsPaused: new Counter({
      name: 'ingest_webhook_endpoints_paused_total',
      help: 'Webhook endpoints the breaker paused: every attempt failed for WEBHOOK_BREAKER_AFTER',
      registers: [registry],
    }),
    requeued: fromZero(
      new Counter({
        name: 'ingest_outbox_requeued_total',
        help: 'Recorded work the maintenance round found missing from its queue and queued again, by kind (event: a content event; delivery: a pending webhook delivery)',
        labelNames: ['kind'],
        registers: [registry],
      }),
      'kind',
      ['event', 'delivery'],
    ),
  };
}

/**
 * An applied event's lag, in seconds, from when it was queued: its acceptance, or its last
 * replay by an operator. Counting a replayed event from its acceptance would report the
 * time it spent failed, waiting for the operator, as the pipeline's delay.
 */
export function lagSecondsOf(
  row: Pick<EventRow, 'receivedAt' | 'lastReplayedAt'>,
  now = Date.now(),
): number {
  return (now - (row.lastReplayedAt ?? row.receivedAt).getTime()) / SECOND_MS;
}
