import { isEventName } from '@ingest/events';
import { AppError, type EventSearchFilters } from '@ingest/contracts';
import { Prisma } from '@ingest/db';
import { replayFailed, type Requeued } from '@ingest/event-log';
import { requeueEvent } from '@ingest/queue';
import type { ApiDeps } from '../../deps.js';
import { searchConditions } from './event-search.js';

type Deps = Pick<ApiDeps, 'db' | 'queues' | 'config' | 'logger' | 'shares'>;

const BULK_LIMIT = 10_000;

/**
 * Sends failed events back to the queue under their own identity (see replayFailed):
 * same id, same place in their lines, same receipt, which counts the replay.
 */
async function replay(deps: Deps, where: Prisma.Sql, limit: number): Promise<Requeued[]> {
  const rows = await replayFailed(deps.db, where, limit);
  for (const row of rows) {
    if (!isEventName(row.event)) continue;
    const job = {
      event: row.event,
      data: { eventId: row.id, requestId: row.requestId, accountId: row.accountId },
      weight: deps.shares.shareOf(row.accountId).weight,
    };
    // If Redis is away, the row is queued again anyway: the outbox reconciler delivers it.
    await requeueEvent(deps.queues, job, deps.config.jobs).catch((error: unknown) =>
      deps.logger.warn(
        { err: error, eventId: row.id },
        'replayed event left to the outbox reconciler',
      ),
    );
    deps.logger.info(
      { eventId: row.id, requestId: row.requestId },
      'event replayed by an operator',
    );
  }
  return rows;
}

export async function replayEvent(deps: Deps, id: string): Promise<void> {
  const [replayed] = await replay(deps, Prisma.sql`id = ${id}::uuid`, 1);
  if (replayed !== undefined) return;
  const exists = await deps.db.prisma.webhookLog.findUnique({
    where: { id },
    select: { status: true },
  });
  if (exists === null) throw new AppError('NOT_FOUND', 'No event with this id');
  throw new AppError(
    'EVENT_NOT_RETRYABLE',
    `Only failed events can be retried; this one is ${exists.status}`,
  );
}

/** Replays every failed event matching the filters (at most 10,000 a call). */
export async function replayMatching(deps: Deps, filters: EventSearchFilters): Promise<number> {
  return (await replay(deps, searchConditions({ ...filters, status: 'failed' }), BULK_LIMIT))
    .length;
}
