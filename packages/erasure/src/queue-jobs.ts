import type { Job, JobType, Queue } from 'bullmq';

const PAGE = 500;
/**
 * The states a job is listed in, in the order a job moves through them: a job that moves
 * while the states are read is met in a later one rather than missed.
 */
const STATES: JobType[] = ['delayed', 'prioritized', 'waiting', 'active', 'completed', 'failed'];

export interface RemovedJobs {
  jobs: number;
  /** Jobs chosen but not removed: a worker held them (active). */
  skipped: number;
}

/**
 * Removes the jobs of `queue` that `choose` picks from each page it is shown, state by
 * state. A job a worker holds cannot be removed until the worker lets it go: it is counted
 * in `skipped`, for the caller to come back for.
 */
export async function removeJobs(
  queue: Queue,
  choose: (page: Job[]) => Job[] | Promise<Job[]>,
): Promise<RemovedJobs> {
  const total: RemovedJobs = { jobs: 0, skipped: 0 };
  for (const state of STATES) {
    for (let start = 0; ;) {
      const page = await queue.getJobs([state], start, start + PAGE - 1, true);
      if (page.length === 0) break;
      let removed = 0;
      for (const job of await choose(page)) {
        if (job.id !== undefined && (await queue.remove(job.id)) === 1) removed += 1;
        else total.skipped += 1;
      }
      total.jobs += removed;
      // Removed jobs leave the listing: the next page starts that many earlier.
      start += page.length - removed;
    }
  }
  return total;
}
