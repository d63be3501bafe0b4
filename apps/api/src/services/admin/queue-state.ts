import type { QueueState } from '@ingest/contracts';
import {
  countWorkers,
  MINUTE_COUNTS,
  readMinuteCounts,
  readQueueDepth,
  type MinuteCountName,
} from '@ingest/queue';
import type { ApiDeps } from '../../deps.js';

type Deps = Pick<ApiDeps, 'queues' | 'redis' | 'config' | 'db'>;

/** Unfinished events counted at most: the partial index of unfinished events reads them. */
const UNFINISHED_LIMIT = 100_000;

/** Queued and processing events, from the event log (not jobs in Redis). */
async function unfinishedEvents(deps: Deps): Promise<QueueState['events']> {
  const { rows } = await deps.db.pool.query<{ status: string; events: number }>(
    `SELECT status, count(*)::int AS events
     FROM (SELECT status FROM webhook_logs WHERE status IN ('queued', 'processing') LIMIT $1) AS u
     GROUP BY status`,
    [UNFINISHED_LIMIT + 1],
  );
  const of = (status: string) => rows.find((row) => row.status === status)?.events ?? 0;
  const queued = of('queued');
  const processing = of('processing');
  return { queued, processing, capped: queued + processing > UNFINISHED_LIMIT };
}

const HOUR_MINUTES = 60;

/** What the queue holds now, who consumes it, and the last hour's throughput. */
export async function queueState(deps: Deps): Promise<QueueState> {
  const { queues, redis } = deps;
  const prefix = deps.config.redis.keyPrefix;
  const [depth, paused, workers, events, ...series] = await Promise.all([
    readQueueDepth(queues.all),
    queues.isPaused(),
    // null, not 0, when Redis will not list its clients (CLIENT LIST refused or missing):
    // a 0 would tell the operator that no worker is running.
    // Every content worker consumes every shard: the first shard's count is theirs.
    countWorkers(queues.all[0]!),
    unfinishedEvents(deps),
    ...MINUTE_COUNTS.map((name) => readMinuteCounts(redis, prefix, name, HOUR_MINUTES)),
  ]);
  const counts = Object.fromEntries(MINUTE_COUNTS.map((name, index) => [name, series[index]!]));
  return {
    paused,
    // BullMQ keeps the jobs of a paused queue in its waiting list: they are the paused ones.
    counts: { ...depth.counts, paused: paused ? depth.counts.waiting : 0 },
    workers,
    oldestWaitingAgeSeconds: depth.oldestWaitingAgeSeconds,
    events,
    throughput: (counts.accepted ?? []).map(({ minute }, index) => ({
      minute: new Date(minute).toISOString(),
      ...(Object.fromEntries(
        MINUTE_COUNTS.map((name) => [name, counts[name]?.[index]?.count ?? 0]),
      ) as Record<MinuteCountName, number>),
    })),
  };
}
