import type { Context } from '@opentelemetry/api';
import { Queue, type QueueOptions } from 'bullmq';
import type { RedisSettings } from '@ingest/config';
import { z } from 'zod';
import { bullPrefix } from './content-queue.js';
import { deliveryJobOptions, type DeliveryPolicy } from './retry/deliveries.js';
import { tracedJobOptions } from './queue-telemetry.js';
import type { RedisClient } from './redis-connection.js';
import { requeueJob, type Requeued } from './requeue.js';

/**
 * The queue of outgoing webhook deliveries, apart from content events so that workers can
 * consume one, the other or both (WORKER_QUEUES), and a slow receiver never holds up
 * content work. Its name is persisted in Redis: renaming it strands queued deliveries.
 */
export const DELIVERIES_QUEUE = 'webhook-deliveries';

/** A delivery job carries its id only: the body and the endpoint's secret stay in PostgreSQL. */
export const DeliveryJobDataSchema = z.strictObject({ deliveryId: z.uuid() });
export type DeliveryJobData = z.infer<typeof DeliveryJobDataSchema>;

export type DeliveryQueue = Queue<DeliveryJobData>;

/**
 * The deliveries queue's name: hash-tagged on a cluster, so that its keys share a slot.
 * It is one queue, on one master: deliveries come at a fraction of the events' rate.
 */
export const deliveriesQueueName = (layout: Pick<RedisSettings, 'cluster'>): string =>
  layout.cluster === null ? DELIVERIES_QUEUE : `${DELIVERIES_QUEUE}-{deliveries}`;

export const createDeliveryQueue = (
  connection: RedisClient,
  layout: Pick<RedisSettings, 'cluster' | 'keyPrefix'>,
  options: Partial<QueueOptions> = {},
): DeliveryQueue =>
  new Queue<DeliveryJobData>(deliveriesQueueName(layout), {
    ...options,
    connection,
    prefix: bullPrefix(layout.keyPrefix),
  });

/** A delivery to queue, and the trace context of the change it tells about. */
export interface NewDelivery {
  deliveryId: string;
  trace?: Context;
}

/** Queues new deliveries in one round trip, their first attempt after the schedule's first wait. */
export async function enqueueDeliveries(
  queue: DeliveryQueue,
  deliveries: readonly NewDelivery[],
  policy: DeliveryPolicy,
): Promise<void> {
  if (deliveries.length === 0) return;
  await queue.addBulk(
    deliveries.map(({ deliveryId, trace }) => ({
      name: 'deliver',
      data: { deliveryId },
      opts: {
        ...deliveryJobOptions(deliveryId, policy, policy.retryScheduleMs[0] ?? 0),
        ...tracedJobOptions(queue, trace),
      },
    })),
  );
}

/** Puts a delivery that is still due back in the queue (see requeueJob), due at once. */
export const requeueDelivery = (
  queue: DeliveryQueue,
  deliveryId: string,
  policy: DeliveryPolicy,
  stillPending: () => Promise<boolean>,
): Promise<Requeued> =>
  requeueJob(
    queue,
    deliveryId,
    () => queue.add('deliver', { deliveryId }, deliveryJobOptions(deliveryId, policy, 0)),
    stillPending,
  );
