import { z } from 'zod';
import { PageQueryFields, pageOf } from './pagination.js';
import { storableText } from './safe-text.js';

export const EVENT_STATUSES = ['queued', 'processing', 'succeeded', 'failed', 'rejected'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
/** Statuses after which nothing more happens to an event. */
export const FINAL_STATUSES = [
  'succeeded',
  'failed',
  'rejected',
] as const satisfies readonly EventStatus[];
export const isFinalStatus = (status: string): boolean =>
  (FINAL_STATUSES as readonly string[]).includes(status);

export const EventResultSchema = z
  .union([
    z.object({
      type: z.literal('article'),
      id: z.uuid(),
      slug: z.string(),
      deleted: z.literal(true).optional(),
      // Optional: events applied before receipts carried it have none.
      version: z.int().min(1).optional().meta({
        description:
          "The version the event left the article at (for a delete, the delete's own: one more than the article's last)",
      }),
    }),
    z.object({
      type: z.literal('highlight'),
      id: z.uuid(),
      deleted: z.literal(true).optional(),
      version: z.int().min(1).optional().meta({
        description:
          "The version the event left the highlight at (for a delete, the delete's own: one more than the highlight's last)",
      }),
    }),
  ])
  .meta({ id: 'EventResult', description: 'What the event changed' });
export type EventResult = z.infer<typeof EventResultSchema>;

export const EventErrorSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    currentVersion: z.int().min(1).optional().meta({
      description: "With VERSION_CONFLICT: the article's version when the event was applied",
    }),
  })
  .meta({ id: 'EventError' });
export type EventError = z.infer<typeof EventErrorSchema>;

export const ReceiptSchema = z
  .object({
    id: z.uuid(),
    event: z.string().nullable(),
    status: z.enum(EVENT_STATUSES),
    attempts: z.int().meta({ description: 'Tries at applying the event so far' }),
    receivedAt: z.iso.datetime(),
    startedAt: z.iso.datetime().nullable(),
    finishedAt: z.iso.datetime().nullable(),
    result: EventResultSchema.nullable(),
    error: EventErrorSchema.nullable().meta({
      description: 'Why it failed or was rejected; while retrying, why the last attempt failed',
    }),
    replays: z.int().meta({
      description: 'Times an operator sent the failed event back to be applied (same id)',
    }),
    lastReplayedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Receipt' });
export type Receipt = z.infer<typeof ReceiptSchema>;

export const AcceptedEventSchema = z
  .object({
    id: z.uuid(),
    event: z.string(),
    status: z.literal('queued'),
    receivedAt: z.iso.datetime(),
  })
  .meta({ id: 'AcceptedEvent' });
export type AcceptedEvent = z.infer<typeof AcceptedEventSchema>;

export const ReceiptListQuerySchema = z.strictObject({
  status: z.enum(EVENT_STATUSES).optional(),
  event: storableText(0, 100).optional(),
  ...PageQueryFields,
});
export type ReceiptListQuery = z.infer<typeof ReceiptListQuerySchema>;

export const ReceiptListSchema = pageOf(ReceiptSchema).meta({ id: 'ReceiptList' });

export const ReceiptIdParamsSchema = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
