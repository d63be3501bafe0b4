import { EVENT_COUNT_LIMIT, type QueueState } from '@ingest/contracts';
import { readBacklog } from '@ingest/event-log';
import { countWorkers, readQueueDepth } from '@ingest/queue';
import type { ApiDeps } from '../../deps.js';

type Deps = Pick<ApiDeps, 'queues' | 'db'>;

/** Queued and processing events, from the event log (not jobs in Redis). */
async function unfinishedEvents(deps: Deps): Promise<QueueState['events']> {
  const { accounts, capped } = await readBacklog(deps.db.pool);
  const sum = (of: (account: (typeof accounts)[number]) => number) =>
    accounts.reduce((total, account) => total + of(account), 0);
  return {
    queued: sum((account) => account.queued),
    processing: sum((account) => account.processing),
    capped,
  };
}

/**
 * The failed or rejected events the log keeps, counted up to EVENT_COUNT_LIMIT through the
 * (status, received_at) index: what the dashboard polls must stay cheap however many.
 */
async function kept(
  deps: Deps,
  status: 'failed' | 'rejected',
): Promise<QueueState['kept']['failed']> {
  const { rows } = await deps.db.pool.query<{ events: number }>({
    name: 'count-kept-events',
    text: `SELECT count(*)::int AS events
           FROM (SELECT 1 FROM webhook_logs WHERE status = $1 LIMIT $2) AS kept`,
    values: [status, EVENT_COUNT_LIMIT + 1],
  });
  const events = rows[0]?.events ?? 0;
  return { count: Math.min(events, EVENT_COUNT_LIMIT), exact: events <= EVENT_COUNT_LIMIT };
}

/** What the queue holds now and who consumes it; GET /api/admin/history has its past. */
export async function queueState(deps: Deps): Promise<QueueState> {
  const { queues } = deps;
  const [depth, workers, events, failed, rejected] = await Promise.all([
    readQueueDepth(queues.all),
    // null, not 0, when Redis will not list its clients (CLIENT LIST refused or missing):
    // a 0 would tell the operator that no worker is running.
    // Every content worker consumes every shard: the first shard's count is theirs.
    countWorkers(queues.all[0]!),
    unfinishedEvents(deps),
    kept(deps, 'failed'),
    kept(deps, 'rejected'),
  ]);
  const { paused } = depth;
  return {
    paused,
    // BullMQ keeps the jobs of a paused queue in its waiting list: they are the paused ones.
    counts: { ...depth.counts, paused: paused ? depth.counts.waiting : 0 },
    workers,
    oldestWaitingAgeSeconds: depth.oldestWaitingAgeSeconds,
    events,
    kept: { failed, rejected },
  };
}
