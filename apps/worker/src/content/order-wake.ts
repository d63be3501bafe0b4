import { queuedHeadsOf, type Line } from '@ingest/event-log';
import { promoteParked, type JobRef } from '@ingest/queue';
import type { WorkerDeps } from '../deps.js';

export interface Waker {
  /**
   * After a commit that finished events (applied, or failed for good): wakes the first
   * queued event of each of their lines, and the jobs of events that were applied in an
   * earlier event's run, so that those end now rather than when their park runs out. Not
   * awaited by the job that finished them: its own outcome does not depend on it.
   */
  wake(lines: Line[], appliedInRuns?: JobRef[]): void;
  /** Resolves once the wakes under way are done (for shutdown). */
  drain(): Promise<void>;
}

/**
 * Successors start when their predecessor finishes: a job that found an earlier event of
 * its line unfinished parked in BullMQ's delayed set (for WORKER_LOCK_DURATION_MS, its
 * safety net), and is promoted from here, right after the commit that let it through. If
 * this process dies between that commit and the promotion, nothing is lost: the parked
 * job wakes itself when its delay ends.
 */
export function createWaker(deps: Pick<WorkerDeps, 'db' | 'queues' | 'logger'>): Waker {
  const underWay = new Set<Promise<void>>();
  async function wake(lines: Line[], appliedInRuns: JobRef[]): Promise<void> {
    try {
      const heads = lines.length === 0 ? [] : await queuedHeadsOf(deps.db.pool, lines);
      await promoteParked(deps.queues, [...heads, ...appliedInRuns]);
    } catch (error) {
      deps.logger.warn(
        { err: error },
        'could not wake the next events in line; they wake themselves when their park ends',
      );
    }
  }
  return {
    wake(lines, appliedInRuns = []) {
      if (lines.length === 0 && appliedInRuns.length === 0) return;
      const running = wake(lines, appliedInRuns).finally(() => underWay.delete(running));
      underWay.add(running);
    },
    async drain() {
      await Promise.all(underWay);
    },
  };
}
