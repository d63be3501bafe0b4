import type { QueuedEvent } from '@ingest/event-log';
import { enqueueContentEvents } from '@ingest/queue';
import type { Context } from '@opentelemetry/api';
import type { ApiClients } from '../clients.js';

/** A committed event, and the trace context it was accepted in (its job's spans go there). */
export type TracedEvent = QueuedEvent & { trace?: Context };

type Deps = Pick<ApiClients, 'queues' | 'config' | 'logger' | 'shares'>;

/**
 * Queues the jobs of committed events, each at its account's place in the fair order, in
 * two round trips. Redis failing here loses nothing: the rows are the outbox, and the
 * workers' reconciler queues them once Redis is back, so the caller still answers 202.
 */
export async function enqueueOrLeaveToReconciler(deps: Deps, events: TracedEvent[]): Promise<void> {
  if (events.length === 0) return;
  try {
    await enqueueContentEvents(
      deps.queues,
      events.map((queued) => ({
        event: queued.event,
        data: { eventId: queued.id, requestId: queued.requestId, accountId: queued.accountId },
        weight: deps.shares.shareOf(queued.accountId).weight,
        trace: queued.trace,
      })),
      deps.config.jobs,
    );
  } catch (error) {
    deps.logger.warn(
      { err: error, eventIds: events.map((queued) => queued.id) },
      'could not enqueue; left to the outbox reconciler',
    );
  }
}
