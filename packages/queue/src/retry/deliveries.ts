// How a webhook delivery is retried, in one place: one attempt per entry of
// WEBHOOK_RETRY_SCHEDULE, each after that entry's wait, counted on the delivery's row.
import type { JobsOptions } from 'bullmq';
import type { JobPolicy } from './content-events.js';

/** The name BullMQ retries deliveries by: deliveryBackoff, in the worker. */
export const DELIVERY_BACKOFF = 'webhook-retry-schedule';

export interface DeliveryPolicy {
  /** WEBHOOK_RETRY_SCHEDULE: one attempt per entry. */
  retryScheduleMs: readonly number[];
  keepCompletedSeconds: number;
  keepFailedSeconds: number;
}

/** The policy as the configuration says it, for the API and the worker alike. */
export const deliveryPolicyOf = (config: {
  webhooks: { retryScheduleMs: readonly number[] };
  jobs: Pick<JobPolicy, 'keepCompletedSeconds' | 'keepFailedSeconds'>;
}): DeliveryPolicy => ({
  retryScheduleMs: config.webhooks.retryScheduleMs,
  keepCompletedSeconds: config.jobs.keepCompletedSeconds,
  keepFailedSeconds: config.jobs.keepFailedSeconds,
});

/**
 * A delivery's job. The delivery id is the job id (queued twice, delivered once). The
 * delivery's row counts its attempts and says when the next is due; the worker ends the
 * delivery after the schedule's last and sets each wait (DELIVERY_BACKOFF), so BullMQ's
 * own count of attempts is only a bound.
 */
export const deliveryJobOptions = (
  deliveryId: string,
  policy: DeliveryPolicy,
  delayMs: number,
): JobsOptions => ({
  jobId: deliveryId,
  attempts: policy.retryScheduleMs.length,
  backoff: { type: DELIVERY_BACKOFF },
  delay: delayMs,
  removeOnComplete: { age: policy.keepCompletedSeconds, count: 100_000 },
  removeOnFail: { age: policy.keepFailedSeconds, count: 100_000 },
});

/** The wait before attempt `attemptsMade + 1` (BullMQ counts the attempts made so far). */
export const retryDelayMs = (schedule: readonly number[], attemptsMade: number): number =>
  schedule[attemptsMade] ?? schedule.at(-1) ?? 0;

/** Whether attempt `attempt` (counted from 1) is the schedule's last. */
export const isLastDelivery = (schedule: readonly number[], attempt: number): boolean =>
  attempt >= schedule.length;

/** A failed attempt that leaves the delivery pending: the next comes after `delayMs`. */
export class RetryDeliveryLater extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

/**
 * The worker's back-off for deliveries: the wait the failed attempt asked for (by the
 * delivery's own count of attempts: its job may have been queued again). A job that
 * failed otherwise (the database, mid-attempt) waits as BullMQ counts, at least a second:
 * an immediate retry would send the message again at once.
 */
export const deliveryBackoff =
  (schedule: readonly number[]) =>
  (attemptsMade: number, type?: string, error?: Error): number =>
    type === DELIVERY_BACKOFF && error instanceof RetryDeliveryLater
      ? error.delayMs
      : Math.max(1_000, retryDelayMs(schedule, attemptsMade));
