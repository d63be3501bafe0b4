import { isEventName } from '@ingest/events';
import { isUnfinished, unfinishedOlderThan } from '@ingest/event-log';
import { requeueEvent } from '@ingest/queue';
import type { WorkerDeps } from './deps.js';

const BATCH = 500;

/**
 * The WebhookLog is the outbox: an event is recorded before it is queued, and the API
 * answers 202 once the row is committed even if Redis could not take the job. This loop
 * finds recorded events that are not finished and no longer (or never) in the queue,
 * and queues them again under their own id.
 *
 * It is safe to run in every worker process at once: re-adding an existing job id is a
 * no-op in BullMQ, retrying a failed job twice fails the second time harmlessly, and a
 * processor applies each event once whatever runs it.
 */
export async function reconcileOnce(deps: WorkerDeps): Promise<number> {
  const { db, queues, config, logger, shares } = deps;
  const rows = await unfinishedOlderThan(db.pool, config.worker.reconcileAfterMs, BATCH);
  let requeued = 0;
  for (const row of rows) {
    if (!isEventName(row.event)) continue;
    const outcome = await requeueEvent(
      queues,
      {
        event: row.event,
        data: { eventId: row.id, requestId: row.requestId, accountId: row.accountId },
        weight: shares.shareOf(row.accountId).weight,
      },
      config.jobs,
      () => isUnfinished(db.pool, row.id),
    );
    if (outcome === 'present' || outcome === 'finished') continue;
    // 'added': Redis never had the job or lost it; 'retried': BullMQ gave up on it (a
    // worker died holding it more often than maxStalledCount allows) while the event is
    // not finished.
    logger.warn(
      { eventId: row.id, requestId: row.requestId, outcome },
      'recorded event was not in the queue; queued it again',
    );
    requeued += 1;
  }
  return requeued;
}
