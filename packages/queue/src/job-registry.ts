import { z } from 'zod';

/**
 * The queue of content events, and the one job each accepted event becomes. The queue
 * name and the job names (the event names) are persisted in Redis: renaming one strands
 * the jobs already queued under the old name.
 */
export const CONTENT_EVENTS_QUEUE = 'content-events';

/**
 * A job carries ids only: the payload stays in the event's WebhookLog row, which the
 * worker reads (and validates again) when it takes the job. Secrets never enter a job.
 */
export const ContentJobDataSchema = z.strictObject({
  eventId: z.uuid(),
  requestId: z.string().max(128),
  /** Whose event it is: which shard holds it, and what its account's cap counts. */
  accountId: z.uuid(),
});
export type ContentJobData = z.infer<typeof ContentJobDataSchema>;
