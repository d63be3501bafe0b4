import { fairPriorities } from '@ingest/fairness';
import type { JobState } from 'bullmq';
import type { ContentShards } from './content-shards.js';
import type { ContentJobData } from './job-registry.js';
import { contentJobOptions, type JobPolicy } from './retry/content-events.js';

export type Requeued = 'added' | 'retried' | 'present' | 'finished';

/** What requeueJob needs of a job BullMQ is done with. */
interface FinishedJob {
  retry(state: 'failed' | 'completed'): Promise<void>;
  changePriority(options: { priority: number }): Promise<void>;
}

/** What requeueJob needs of a queue, whatever its jobs carry. */
interface JobLookup {
  getJobState(jobId: string): Promise<JobState | 'unknown'>;
  getJob(jobId: string): Promise<FinishedJob | undefined>;
}

/**
 * Puts a job back in its queue whatever BullMQ did with it: adds it when Redis has no such
 * job (lost, expired, never queued), retries it when BullMQ had finished with it (failed for
 * good, or completed), and leaves it when it is already waiting or running. BullMQ silently
 * ignores adding a job id that exists in any state, so the state is looked at first. Safe to
 * run concurrently: a second retry of the same job fails harmlessly.
 *
 * `stillUnfinished` re-reads the job's record when BullMQ is done with the job: a worker may
 * have just completed it, and retrying it would only run it again for nothing.
 */
export async function requeueJob(
  queue: JobLookup,
  jobId: string,
  add: () => Promise<unknown>,
  stillUnfinished: () => Promise<boolean> = () => Promise.resolve(true),
  beforeRetry: (job: FinishedJob) => Promise<void> = () => Promise.resolve(),
): Promise<Requeued> {
  const state = await queue.getJobState(jobId);
  if (state === 'unknown') {
    await add();
    return 'added';
  }
  if (state === 'failed' || state === 'completed') {
    if (!(await stillUnfinished())) return 'finished';
    const job = await queue.getJob(jobId);
    if (job !== undefined) await beforeRetry(job);
    await job?.retry(state).catch(() => undefined); // another process retried it first
    return 'retried';
  }
  return 'present';
}

/**
 * Puts an event's job back in its account's shard of the content queue (see requeueJob),
 * at a fresh place in the fair order of its account: what it held before is long past, or
 * from before Redis lost it.
 */
export async function requeueEvent(
  shards: ContentShards,
  job: { event: string; data: ContentJobData; weight: number },
  policy: JobPolicy,
  stillUnfinished?: () => Promise<boolean>,
): Promise<Requeued> {
  const { event, data } = job;
  const queue = shards.of(data.accountId);
  const freshPriority = async () =>
    (await fairPriorities(queue, [{ accountId: data.accountId, weight: job.weight }]))[0] ?? 1;
  return requeueJob(
    queue,
    data.eventId,
    async () =>
      queue.add(event, data, contentJobOptions(data.eventId, policy, await freshPriority())),
    stillUnfinished,
    async (finished) => finished.changePriority({ priority: await freshPriority() }),
  );
}
