import type { QueueState } from '@ingest/contracts';
import { readMinuteCounts } from '@ingest/queue';
import type { ApiDeps } from '../../deps.js';

type Deps = Pick<ApiDeps, 'queue' | 'redis' | 'config'>;

const HOUR_MINUTES = 60;

/** What the queue holds now, who consumes it, and the last hour's throughput. */
export async function queueState(deps: Deps): Promise<QueueState> {
  const { queue, redis } = deps;
  const prefix = deps.config.redis.keyPrefix;
  const [counts, paused, workers, oldest, accepted, applied] = await Promise.all([
    queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'),
    queue.isPaused(),
    // CLIENT LIST may be disabled on managed Redis: then the count is unknown, not an error.
    queue.getWorkersCount().catch(() => 0),
    // Waiting jobs are consumed from the tail of the list: the oldest is the last one.
    queue.getWaiting(-1, -1),
    readMinuteCounts(redis, prefix, 'accepted', HOUR_MINUTES),
    readMinuteCounts(redis, prefix, 'applied', HOUR_MINUTES),
  ]);
  const oldestTimestamp = oldest[0]?.timestamp;
  return {
    paused,
    // BullMQ keeps the jobs of a paused queue in its waiting list: they are the paused ones.
    counts: {
      waiting: counts.waiting ?? 0,
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
      completed: counts.completed ?? 0,
      prioritized: counts.prioritized ?? 0,
      paused: paused ? (counts.waiting ?? 0) : 0,
    },
    workers,
    oldestWaitingAgeSeconds:
      oldestTimestamp === undefined ? null : Math.max(0, (Date.now() - oldestTimestamp) / 1000),
    throughput: accepted.map(({ minute, count }, index) => ({
      minute: new Date(minute).toISOString(),
      accepted: count,
      applied: applied[index]?.count ?? 0,
    })),
  };
}
