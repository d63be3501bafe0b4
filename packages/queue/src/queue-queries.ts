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
}

/** Jobs per BullMQ state, and how long the job next in line has waited. */
export async function readQueueDepth(
  queue: Pick<ContentQueue, 'getJobCounts' | 'getWaiting'>,
): Promise<QueueDepth> {
  const [counts, next] = await Promise.all([
    queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'),
    // Ascending, as getWaiting reads, index 0 is the job next to run: the one that has
    // waited longest. Index -1 would be the newest, the one added last.
    queue.getWaiting(0, 0),
  ]);
  const addedAt = next[0]?.timestamp;
  return {
    counts: {
      waiting: counts.waiting ?? 0,
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
      completed: counts.completed ?? 0,
      prioritized: counts.prioritized ?? 0,
    },
    oldestWaitingAgeSeconds:
      addedAt === undefined ? null : Math.max(0, (Date.now() - addedAt) / 1000),
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
