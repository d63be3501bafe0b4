import type { QueueState } from '@ingest/contracts';
import { countWorkers, readMinuteCounts, readQueueDepth } from '@ingest/queue';
import type { ApiDeps } from '../../deps.js';

type Deps = Pick<ApiDeps, 'queues' | 'redis' | 'config'>;

const HOUR_MINUTES = 60;

/** What the queue holds now, who consumes it, and the last hour's throughput. */
export async function queueState(deps: Deps): Promise<QueueState> {
  const { queues, redis } = deps;
  const prefix = deps.config.redis.keyPrefix;
  const [depth, paused, workers, accepted, applied] = await Promise.all([
    readQueueDepth(queues.all),
    queues.isPaused(),
    // null, not 0, when Redis will not list its clients (CLIENT LIST refused or missing):
    // a 0 would tell the operator that no worker is running.
    // Every content worker consumes every shard: the first shard's count is theirs.
    countWorkers(queues.all[0]!),
    readMinuteCounts(redis, prefix, 'accepted', HOUR_MINUTES),
    readMinuteCounts(redis, prefix, 'applied', HOUR_MINUTES),
  ]);
  return {
    paused,
    // BullMQ keeps the jobs of a paused queue in its waiting list: they are the paused ones.
    counts: { ...depth.counts, paused: paused ? depth.counts.waiting : 0 },
    workers,
    oldestWaitingAgeSeconds: depth.oldestWaitingAgeSeconds,
    throughput: accepted.map(({ minute, count }, index) => ({
      minute: new Date(minute).toISOString(),
      accepted: count,
      applied: applied[index]?.count ?? 0,
    })),
  };
}
