import { isEventName } from '@ingest/events';
import {
  AppError,
  TRANSIENT_FAILURE_CODE,
  type BulkRetryPreview,
  type BulkRetryRequest,
} from '@ingest/contracts';
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

/** Counts of a preview stop here: 10 times what one bulk retry takes. */
const PREVIEW_LIMIT = 100_000;

type BulkRetry = Omit<BulkRetryRequest, 'status'>;

/** The failed events a bulk retry matches, before leaving out failures of their own. */
const matching = ({ includeOwnFailures: _, ...filters }: BulkRetry): Prisma.Sql =>
  searchConditions({ ...filters, status: 'failed' });

/**
 * Whether a matching event is retried: its attempts ran out on a cause outside it, or the
 * caller asked for failures of the event's own, by the flag or by naming their code.
 */
const takesOwnFailures = (request: BulkRetry): boolean =>
  request.includeOwnFailures || request.error !== undefined;

/**
 * What a bulk retry of the same request would do now: the matching failed events by error
 * code, and which it takes (at most 100,000 counted).
 */
export async function previewRetry(deps: Deps, request: BulkRetry): Promise<BulkRetryPreview> {
  const rows = await deps.db.prisma.$queryRaw<Array<{ code: string | null; events: number }>>`
    SELECT code, count(*)::int AS events
    FROM (
      SELECT error ->> 'code' AS code FROM webhook_logs
      WHERE status = 'failed' AND ${matching(request)}
      LIMIT ${PREVIEW_LIMIT + 1}
    ) AS matched
    GROUP BY code
    ORDER BY events DESC, code`;
  const all = takesOwnFailures(request);
  const byCode = rows.map(({ code, events }) => ({
    code: code ?? TRANSIENT_FAILURE_CODE,
    events,
    retried: all || (code ?? TRANSIENT_FAILURE_CODE) === TRANSIENT_FAILURE_CODE,
  }));
  const counted = byCode.reduce((sum, { events }) => sum + events, 0);
  const taken = byCode.reduce((sum, { events, retried }) => sum + (retried ? events : 0), 0);
  return {
    willRetry: Math.min(taken, BULK_LIMIT),
    leftOut: counted - taken,
    byCode,
    capped: counted > PREVIEW_LIMIT,
  };
}

/**
 * Replays the failed events a request matches (at most 10,000 a call), leaving out those
 * that failed for a reason of their own unless asked for (see takesOwnFailures).
 */
export async function replayMatching(
  deps: Deps,
  request: BulkRetry,
): Promise<{ retried: number; leftOut: number }> {
  const where = matching(request);
  if (takesOwnFailures(request)) {
    return { retried: (await replay(deps, where, BULK_LIMIT)).length, leftOut: 0 };
  }
  const transient = Prisma.sql`${where} AND error ->> 'code' = ${TRANSIENT_FAILURE_CODE}`;
  const retried = (await replay(deps, transient, BULK_LIMIT)).length;
  const [own] = await deps.db.prisma.$queryRaw<Array<{ events: number }>>`
    SELECT count(*)::int AS events FROM (
      SELECT 1 FROM webhook_logs
      WHERE status = 'failed' AND ${where}
        AND error ->> 'code' IS DISTINCT FROM ${TRANSIENT_FAILURE_CODE}
      LIMIT ${PREVIEW_LIMIT}
    ) AS own`;
  return { retried, leftOut: own?.events ?? 0 };
}
