import { fairPriorities } from '@ingest/fairness';
import type { Context } from '@opentelemetry/api';
import type { ContentQueue } from './content-queue.js';
import { byShard, type ContentShards } from './content-shards.js';
import type { ContentJobData } from './job-registry.js';
import { contentJobOptions, type JobPolicy } from './retry/content-events.js';
import { tracedJobOptions } from './queue-telemetry.js';

/** An event to queue, with its account's weight in the fair order. */
export interface ContentJob {
  /** The event's name, which is its job's name. */
  event: string;
  data: ContentJobData;
  weight: number;
  /** The trace context of the event's acceptance: its job's spans go in that trace. */
  trace?: Context;
}

/**
 * Queues accepted events in two round trips per shard they fall in, the shards at once:
 * their places in the fair order (one script call), then the jobs (BullMQ `addBulk`, one
 * MULTI). The event id is the job id, so adding an event already queued is a no-op.
 */
export async function enqueueContentEvents(
  shards: ContentShards,
  jobs: ContentJob[],
  policy: JobPolicy,
): Promise<void> {
  const groups = byShard(shards, jobs, (job) => job.data.accountId);
  await Promise.all([...groups].map(([queue, group]) => enqueueInShard(queue, group, policy)));
}

async function enqueueInShard(queue: ContentQueue, jobs: ContentJob[], policy: JobPolicy) {
  const priorities = await fairPriorities(
    queue,
    jobs.map(({ data, weight }) => ({ accountId: data.accountId, weight })),
  );
  await queue.addBulk(
    jobs.map(({ event, data, trace }, index) => ({
      name: event,
      data,
      opts: {
        ...contentJobOptions(data.eventId, policy, priorities[index] ?? 1),
        ...tracedJobOptions(queue, trace),
      },
    })),
  );
}
