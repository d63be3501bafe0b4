import { Queue, type JobsOptions, type QueueOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { bullPrefix } from './content-queue.js';

/**
 * The queue of outgoing webhook deliveries, apart from content events so that workers can
 * consume one, the other or both (WORKER_QUEUES), and a slow receiver never holds up
 * content work. Its name is persisted in Redis: renaming it strands queued deliveries.
 */
export const DELIVERIES_QUEUE = 'webhook-deliveries';

/** The name BullMQ retries deliveries by: WEBHOOK_RETRY_SCHEDULE, in the worker. */
export const DELIVERY_BACKOFF = 'webhook-retry-schedule';

/** A delivery job carries its id only: the body and the endpoint's secret stay in PostgreSQL. */
export const DeliveryJobDataSchema = z.strictObject({ deliveryId: z.uuid() });
export type DeliveryJobData = z.infer<typeof DeliveryJobDataSchema>;

export type DeliveryQueue = Queue<DeliveryJobData>;

export const createDeliveryQueue = (
  connection: Redis,
  keyPrefix: string,
  options: Partial<QueueOptions> = {},
): DeliveryQueue =>
  new Queue<DeliveryJobData>(DELIVERIES_QUEUE, {
    ...options,
    connection,
    prefix: bullPrefix(keyPrefix),
  });

export interface DeliveryPolicy {
  /** WEBHOOK_RETRY_SCHEDULE: one attempt per entry. */
  retryScheduleMs: readonly number[];
  keepCompletedSeconds: number;
  keepFailedSeconds: number;
}

/**
 * Queues deliveries in one round trip. The delivery id is the job id (queued twice,
 * delivered once); the attempts and their spacing are the retry schedule's, which the
 * worker's backoff strategy reads (DELIVERY_BACKOFF).
 */
export async function enqueueDeliveries(
  queue: DeliveryQueue,
  deliveryIds: readonly string[],
  policy: DeliveryPolicy,
): Promise<void> {
  const options = (deliveryId: string): JobsOptions => ({
    jobId: deliveryId,
    attempts: policy.retryScheduleMs.length,
    backoff: { type: DELIVERY_BACKOFF },
    delay: policy.retryScheduleMs[0] ?? 0,
    removeOnComplete: { age: policy.keepCompletedSeconds, count: 100_000 },
    removeOnFail: { age: policy.keepFailedSeconds, count: 100_000 },
  });
  await queue.addBulk(
    deliveryIds.map((deliveryId) => ({
      name: 'deliver',
      data: { deliveryId },
      opts: options(deliveryId),
    })),
  );
}

/** The wait before attempt `attemptsMade + 1` (BullMQ counts the attempts made so far). */
export const retryDelayMs = (schedule: readonly number[], attemptsMade: number): number =>
  schedule[attemptsMade] ?? schedule.at(-1) ?? 0;
