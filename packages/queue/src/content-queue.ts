import { Queue, type QueueOptions } from 'bullmq';
import type { EventName } from '@ingest/contracts';
import type { Redis } from 'ioredis';
import {
  CONTENT_EVENTS_QUEUE,
  contentJobOptions,
  type ContentJobData,
  type JobPolicy,
} from './job-registry.js';

export type ContentQueue = Queue<ContentJobData, unknown, EventName>;

/** BullMQ's keys live under the deployment's prefix: `<prefix>:bull:content-events:*`. */
export const bullPrefix = (keyPrefix: string): string => `${keyPrefix}:bull`;

export function createContentQueue(
  connection: Redis,
  keyPrefix: string,
  options: Partial<QueueOptions> = {},
): ContentQueue {
  return new Queue<ContentJobData, unknown, EventName>(CONTENT_EVENTS_QUEUE, {
    ...options,
    connection,
    prefix: bullPrefix(keyPrefix),
  });
}

/**
 * Queues accepted events in one round trip (BullMQ `addBulk`, one MULTI). The event id
 * is the job id, so adding an event already queued is a no-op.
 */
export async function enqueueContentEvents(
  queue: ContentQueue,
  events: Array<{ event: EventName; data: ContentJobData }>,
  policy: JobPolicy,
): Promise<void> {
  await queue.addBulk(
    events.map(({ event, data }) => ({
      name: event,
      data,
      opts: contentJobOptions(data.eventId, policy),
    })),
  );
}
