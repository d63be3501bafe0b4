import { Queue, type QueueOptions } from 'bullmq';
import type { EventName } from '@ingest/contracts';
import type { Redis } from 'ioredis';
import { fairPriorities } from './fair-order.js';
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

/** An event to queue, with its account's weight in the fair order. */
export interface ContentJob {
  event: EventName;
  data: ContentJobData & { accountId: string };
  weight: number;
}

/**
 * Queues accepted events in two round trips: their places in the fair order (one script
 * call), then the jobs (BullMQ `addBulk`, one MULTI). The event id is the job id, so
 * adding an event already queued is a no-op.
 */
export async function enqueueContentEvents(
  queue: ContentQueue,
  jobs: ContentJob[],
  policy: JobPolicy,
): Promise<void> {
  if (jobs.length === 0) return;
  const priorities = await fairPriorities(
    queue,
    jobs.map(({ data, weight }) => ({ accountId: data.accountId, weight })),
  );
  await queue.addBulk(
    jobs.map(({ event, data }, index) => ({
      name: event,
      data,
      opts: contentJobOptions(data.eventId, policy, priorities[index] ?? 1),
    })),
  );
}
