import { isEventName } from '@ingest/contracts';
import { requeueEvent } from '@ingest/queue';
import type { WorkerDeps } from './deps.js';

const BATCH = 500;

interface Unfinished {
  id: string;
  event: string | null;
  requestId: string;
}

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
  const { db, queue, config, logger } = deps;
  const rows = await db.prisma.$queryRaw<Unfinished[]>`
    SELECT id, event, request_id AS "requestId"
    FROM webhook_logs
    WHERE status IN ('queued', 'processing')
      AND received_at < now() - make_interval(secs => ${config.worker.reconcileAfterMs / 1000})
    ORDER BY sequence
    LIMIT ${BATCH}`;
  let requeued = 0;
  for (const row of rows) {
    if (!isEventName(row.event)) continue;
    const outcome = await requeueEvent(
      queue,
      row.event,
      { eventId: row.id, requestId: row.requestId },
      config.jobs,
      async () =>
        (await db.prisma.webhookLog.count({
          where: { id: row.id, status: { in: ['queued', 'processing'] } },
        })) > 0,
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
