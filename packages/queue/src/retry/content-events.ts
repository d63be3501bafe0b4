// How a content event's job is retried, in one place: attempts and back-off (JOB_ATTEMPTS,
// JOB_BACKOFF_MS), stalls (stalled-jobs.ts), and which failures are permanent.
import { isAppError } from '@ingest/contracts';
import { UnrecoverableError, type Job, type JobsOptions } from 'bullmq';

export interface JobPolicy {
  attempts: number;
  backoffMs: number;
  keepCompletedSeconds: number;
  keepFailedSeconds: number;
}

/**
 * Options of every content job. The job id is the event id: adding an event twice queues it
 * once. The priority is its place in the fair order (@ingest/fairness). Finished jobs leave
 * Redis after a while: the event log is the source of truth, Redis only holds work in flight.
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

/**
 * A failure the event itself causes (an AppError: not found, slug taken, invalid) fails it
 * at once and for good; anything else is transient and retried until the attempts run out.
 */
export const isPermanent = (error: unknown): boolean => isAppError(error);

/** Whether the job's attempt under way is its last. */
export const isLastAttempt = (job: Pick<Job, 'attemptsMade' | 'opts'>): boolean =>
  job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

/** What a failed attempt throws to BullMQ: no retry for a permanent failure, back-off otherwise. */
export const failureForQueue = (error: unknown): unknown =>
  isAppError(error) ? new UnrecoverableError(error.message) : error;
