import { Queue, type QueueOptions } from 'bullmq';
import type { RedisClient } from './redis-connection.js';
import { CONTENT_EVENTS_QUEUE, type ContentJobData } from './job-registry.js';

export type ContentQueue = Queue<ContentJobData, unknown, string>;

/** BullMQ's keys live under the deployment's prefix: `<prefix>:bull:content-events:*`. */
export const bullPrefix = (keyPrefix: string): string => `${keyPrefix}:bull`;

/** One queue of content events: the whole of it, or a shard (content-shards.ts). */
export function createContentQueue(
  connection: RedisClient,
  keyPrefix: string,
  options: Partial<QueueOptions> = {},
  name = CONTENT_EVENTS_QUEUE,
): ContentQueue {
  return new Queue<ContentJobData, unknown, string>(name, {
    ...options,
    connection,
    prefix: bullPrefix(keyPrefix),
  });
}
