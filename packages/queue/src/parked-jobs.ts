import { isEventName } from '@ingest/contracts';
import { Job } from 'bullmq';
import type { ContentQueue } from './content-queue.js';
import type { ContentJobData } from './job-registry.js';

export interface JobRef {
  /** The event id, which is the job id. */
  eventId: string;
  /** The event name, which is the job name. */
  event: string | null;
  requestId: string;
}

/**
 * Moves the jobs of these events from `delayed` (where a job waiting for an earlier
 * event of its line parks) to `waiting`, so that they run now rather than when their
 * safety-net delay ends. A job in any other state, or none, is left as it is: it is
 * already due to run, or running. One script call a job, sent together; a Job handle
 * built from the id needs no read of the job first. Returns how many were promoted.
 */
export async function promoteParked(queue: ContentQueue, jobs: JobRef[]): Promise<number> {
  const outcomes = await Promise.allSettled(
    jobs.flatMap(({ eventId, event, requestId }) => {
      if (!isEventName(event)) return [];
      const data: ContentJobData = { eventId, requestId };
      return [
        new Job<ContentJobData, unknown, typeof event>(queue, event, data, {}, eventId).promote(),
      ];
    }),
  );
  return outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
}
