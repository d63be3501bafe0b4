import type { EventName } from '@ingest/contracts';
import type { ContentQueue } from './content-queue.js';
import { contentJobOptions, type ContentJobData, type JobPolicy } from './job-registry.js';

export type Requeued = 'added' | 'retried' | 'present' | 'finished';

/**
 * Puts an event's job back in the queue whatever BullMQ did with it: adds it when Redis
 * has no such job (lost, expired, never queued), retries it when BullMQ had finished
 * with it (failed for good, or completed), and leaves it when it is already waiting or
 * running. Adding a job id that exists in any state is silently ignored by BullMQ, so
 * the state has to be looked at first. Safe to run concurrently: a second retry of the
 * same job fails harmlessly.
 *
 * `stillUnfinished` re-reads the event's own record when BullMQ says it is done with the
 * job: a caller that found the event unfinished a moment ago may be looking at a job a
 * worker has just completed, and retrying that would only run it again for nothing.
 */
export async function requeueEvent(
  queue: ContentQueue,
  event: EventName,
  data: ContentJobData,
  policy: JobPolicy,
  stillUnfinished: () => Promise<boolean> = () => Promise.resolve(true),
): Promise<Requeued> {
  const state = await queue.getJobState(data.eventId);
  if (state === 'unknown') {
    await queue.add(event, data, contentJobOptions(data.eventId, policy));
    return 'added';
  }
  if (state === 'failed' || state === 'completed') {
    if (!(await stillUnfinished())) return 'finished';
    const job = await queue.getJob(data.eventId);
    await job?.retry(state).catch(() => undefined); // another process retried it first
    return 'retried';
  }
  return 'present';
}
