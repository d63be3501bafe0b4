// Read-only questions about the content queue, asked by the operators' queue state and
// by /metrics on the API and the worker: one place, so that the dashboard and Prometheus
// always mean the same thing by "waiting" and "oldest".
import type { QueueState } from '@ingest/contracts';
import type { ContentQueue } from './content-queue.js';

export interface QueueDepth {
  /** The operators' counts, less `paused`: the queue state derives that from `waiting`. */
  counts: Omit<QueueState['counts'], 'paused'>;
  /** Seconds since the job next in line was added; null when no job waits. */
  oldestWaitingAgeSeconds: number | null;
  /** Whether every shard is paused (an operator pauses them together). */
  paused: boolean;
}

type DepthQueue = Pick<ContentQueue, 'getJobCounts' | 'getWaiting' | 'getPrioritized' | 'isPaused'>;

/**
 * The depth of the whole content queue: every shard's counts summed, and the longest wait
 * of any shard's next job (each shard's workers take its head).
 */
export async function readQueueDepth(shards: readonly DepthQueue[]): Promise<QueueDepth> {
  const depths = await Promise.all(shards.map(readShardDepth));
  const counts = depths
    .map((depth) => depth.counts)
    .reduce((sum, shard) => ({
      waiting: sum.waiting + shard.waiting,
      active: sum.active + shard.active,
      delayed: sum.delayed + shard.delayed,
      failed: sum.failed + shard.failed,
      completed: sum.completed + shard.completed,
      prioritized: sum.prioritized + shard.prioritized,
    }));
  const ages = depths.flatMap(({ oldestWaitingAgeSeconds: age }) => (age === null ? [] : [age]));
  return {
    counts,
    oldestWaitingAgeSeconds: ages.length === 0 ? null : Math.max(...ages),
    paused: depths.every((depth) => depth.paused),
  };
}

/**
 * Jobs per BullMQ state, and how long the job next in line has waited. Content jobs carry
 * their place in the fair order as a BullMQ priority (@ingest/fairness), so the jobs waiting
 * for a worker are in `prioritized`; `waiting` counts them together with any in BullMQ's
 * plain list (jobs queued without a priority), so that it means "accepted, not yet taken".
 * The job next in line is the head of the fair order: another account's backlog may hold
 * older jobs (GET /api/admin/queue/accounts names them).
 */
async function readShardDepth(queue: DepthQueue): Promise<QueueDepth> {
  const [counts, plain, ordered, paused] = await Promise.all([
    queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'),
    // A worker takes BullMQ's plain list first (index 0: the job added first), then the
    // prioritized set in order (index 0: the lowest priority, the head).
    queue.getWaiting(0, 0),
    queue.getPrioritized(0, 0),
    queue.isPaused(),
  ]);
  const addedAt = (plain[0] ?? ordered[0])?.timestamp;
  return {
    counts: {
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
      completed: counts.completed ?? 0,
      prioritized: counts.prioritized ?? 0,
    },
    oldestWaitingAgeSeconds:
      addedAt === undefined ? null : Math.max(0, (Date.now() - addedAt) / 1000),
    paused,
  };
}

// Where Redis has no CLIENT command (Google Memorystore, or the command renamed away),
// BullMQ answers with one made-up worker of this name rather than an error.
const NO_CLIENT_LIST = 'GCP does not support client list';

/**
 * Worker connections BullMQ sees on the queue, or null when Redis will not list its
 * clients: CLIENT LIST refused (an ACL without it) or missing (some managed Redis).
 */
export async function countWorkers(
  queue: Pick<ContentQueue, 'getWorkers'>,
): Promise<number | null> {
  const workers = await queue.getWorkers().catch(() => undefined);
  if (workers === undefined || workers.some((worker) => worker.name === NO_CLIENT_LIST))
    return null;
  return workers.length;
}
