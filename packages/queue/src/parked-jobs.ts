import { Job, type Queue } from 'bullmq';
import { byShard, type ContentShards } from './content-shards.js';

export interface JobRef {
  /** The event id, which is the job id. */
  eventId: string;
  /** The event name, which is the job name. */
  event: string | null;
  requestId: string;
  /** Whose event it is: which shard of the content queue holds its job. */
  accountId: string;
}

/**
 * Moves these jobs from `delayed` (where a job parks behind an earlier event of its line, or
 * for a slot of its account's cap) to its queue, so that they run now rather than when their
 * safety-net delay ends; a job in any other state, or none, is already due or running, and
 * is left as it is. Promoting needs only the id, so no job is read first. Returns how many moved.
 */
export async function promoteJobs(queue: Queue, jobIds: string[]): Promise<number> {
  const outcomes = await Promise.allSettled(
    jobIds.map((id) => new Job(queue, 'promote', {}, {}, id).promote()),
  );
  return outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
}

/** promoteJobs for the jobs of these events, in the shards that hold them. */
export async function promoteParked(shards: ContentShards, jobs: JobRef[]): Promise<number> {
  const groups = byShard(shards, jobs, (job) => job.accountId);
  const moved = await Promise.all(
    [...groups].map(([queue, group]) =>
      promoteJobs(
        queue,
        group.map((job) => job.eventId),
      ),
    ),
  );
  return moved.reduce((sum, count) => sum + count, 0);
}
