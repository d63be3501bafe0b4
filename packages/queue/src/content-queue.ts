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

/** Queues one accepted event; the event id is the job id, so a repeat is a no-op. */
export async function enqueueContentEvent(
  queue: ContentQueue,
  event: EventName,
  data: ContentJobData,
  policy: JobPolicy,
): Promise<void> {
  await queue.add(event, data, contentJobOptions(data.eventId, policy));
}
