import { queuedHeadsOf, type Line } from '@ingest/event-log';
import { promoteParked, type JobRef } from '@ingest/queue';
import type { WorkerDeps } from '../deps.js';

export interface Waker {
  /**
   * After a commit that finished events (applied, or failed for good): wakes the first queued
   * event of each of their lines, and the jobs of events applied in an earlier event's run,
   * so that those end now rather than when their park runs out. Not awaited: the finishing
   * job's outcome does not depend on it.
   */
  wake(lines: Line[], appliedInRuns?: JobRef[]): void;
  /** Resolves once the wakes under way are done (for shutdown). */
  drain(): Promise<void>;
}

/**
 * Successors start when their predecessor finishes: a job parked behind an earlier event of
 * its line is promoted from here, right after the commit that let it through. If this
 * process dies in between, nothing is lost: the parked job wakes itself when its safety-net
 * delay (WORKER_LOCK_DURATION_MS) ends.
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
