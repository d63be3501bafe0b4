import type { QueueState } from '@ingest/contracts';
import { readBacklog } from '@ingest/event-log';
import { countWorkers, readQueueDepth } from '@ingest/queue';
import type { ApiDeps } from '../../deps.js';
import { appliedLag, countKept, estimateLogRows, succeededFigure } from './event-log-figures.js';

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

/** What the queue holds now and who consumes it; GET /api/admin/history has its past. */
export async function queueState(deps: Deps): Promise<QueueState> {
  const { queues } = deps;
  const { pool } = deps.db;
  const [depth, workers, events, succeeded, failed, rejected, logRows, lag] = await Promise.all([
    readQueueDepth(queues.all),
    // null, not 0, when Redis will not list its clients (CLIENT LIST refused or missing):
    // a 0 would tell the operator that no worker is running.
    // Every content worker consumes every shard: the first shard's count is theirs.
    countWorkers(queues.all[0]!),
    unfinishedEvents(deps),
    countKept(pool, 'succeeded'),
    countKept(pool, 'failed'),
    countKept(pool, 'rejected'),
    estimateLogRows(pool),
    appliedLag(pool),
  ]);
  const others = events.queued + events.processing + failed.count + rejected.count;
  const { paused } = depth;
  return {
    paused,
    // BullMQ keeps the jobs of a paused queue in its waiting list: they are the paused ones.
    counts: { ...depth.counts, paused: paused ? depth.counts.waiting : 0 },
    workers,
    oldestWaitingAgeSeconds: depth.oldestWaitingAgeSeconds,
    events,
    kept: { succeeded: succeededFigure(succeeded, logRows, others), failed, rejected },
    lag,
  };
}
