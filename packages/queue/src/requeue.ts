import type { EventName } from '@ingest/contracts';
import type { JobState } from 'bullmq';
import type { ContentQueue } from './content-queue.js';
import { contentJobOptions, type ContentJobData, type JobPolicy } from './job-registry.js';

export type Requeued = 'added' | 'retried' | 'present' | 'finished';

/** What requeueJob needs of a queue, whatever its jobs carry. */
interface JobLookup {
  getJobState(jobId: string): Promise<JobState | 'unknown'>;
  getJob(
    jobId: string,
  ): Promise<{ retry(state: 'failed' | 'completed'): Promise<void> } | undefined>;
}

/**
 * Puts a job back in its queue whatever BullMQ did with it: adds it when Redis has no
 * such job (lost, expired, never queued), retries it when BullMQ had finished with it
 * (failed for good, or completed), and leaves it when it is already waiting or running.
 * Adding a job id that exists in any state is silently ignored by BullMQ, so the state
 * has to be looked at first. Safe to run concurrently: a second retry of the same job
 * fails harmlessly.
 *
 * `stillUnfinished` re-reads the record the job is about when BullMQ says it is done with
 * the job: a caller that found the record unfinished a moment ago may be looking at a job
 * a worker has just completed, and retrying that would only run it again for nothing.
 */
export async function requeueJob(
  queue: JobLookup,
  jobId: string,
  add: () => Promise<unknown>,
  stillUnfinished: () => Promise<boolean> = () => Promise.resolve(true),
): Promise<Requeued> {
  const state = await queue.getJobState(jobId);
  if (state === 'unknown') {
    await add();
    return 'added';
  }
  if (state === 'failed' || state === 'completed') {
    if (!(await stillUnfinished())) return 'finished';
    const job = await queue.getJob(jobId);
    await job?.retry(state).catch(() => undefined); // another process retried it first
    return 'retried';
  }
  return 'present';
}

/** Puts an event's job back in the content queue (see requeueJob). */
export const requeueEvent = (
  queue: ContentQueue,
  event: EventName,
  data: ContentJobData,
  policy: JobPolicy,
  stillUnfinished?: () => Promise<boolean>,
): Promise<Requeued> =>
  requeueJob(
    queue,
    data.eventId,
    () => queue.add(event, data, contentJobOptions(data.eventId, policy)),
    stillUnfinished,
  );
