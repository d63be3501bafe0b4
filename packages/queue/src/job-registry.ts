import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

/**
 * The queue of content events, and the one job each accepted event becomes. The queue
 * name and the job names (the event names) are persisted in Redis: renaming one strands
 * the jobs already queued under the old name.
 */
export const CONTENT_EVENTS_QUEUE = 'content-events';

/**
 * A job carries ids only: the payload stays in the event's WebhookLog row, which the
 * worker reads (and validates again) when it takes the job. Secrets never enter a job.
 */
export const ContentJobDataSchema = z.strictObject({
  eventId: z.uuid(),
  requestId: z.string().max(128),
  /**
   * Whose event it is: what an account's cap on events in flight counts. Optional, for
   * the jobs of releases that did not carry it (they are never capped).
   */
  accountId: z.uuid().optional(),
});
export type ContentJobData = z.infer<typeof ContentJobDataSchema>;

export interface JobPolicy {
  attempts: number;
  backoffMs: number;
  keepCompletedSeconds: number;
  keepFailedSeconds: number;
}

/**
 * Options of every content job. The job id is the event id: adding an event twice
 * queues it once. The priority is its place in the fair order (@ingest/fairness). Attempts
 * back off exponentially (backoffMs, 2x, 4x, ...). Finished jobs are dropped from Redis
 * after a while: the event log is the source of truth, Redis only holds work in flight.
 */
export function contentJobOptions(
  eventId: string,
  policy: JobPolicy,
  priority: number,
): JobsOptions {
  return {
    jobId: eventId,
    priority,
    attempts: policy.attempts,
    backoff: { type: 'exponential', delay: policy.backoffMs },
    removeOnComplete: { age: policy.keepCompletedSeconds, count: 100_000 },
    removeOnFail: { age: policy.keepFailedSeconds, count: 100_000 },
  };
}
