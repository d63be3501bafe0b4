import { z } from 'zod';
import { pageOf, PageQueryFields } from './pagination.js';
import { EVENT_STATUSES, ReceiptSchema } from './receipts.js';

const JOB_STATES = [
  'waiting',
  'active',
  'delayed',
  'failed',
  'completed',
  'paused',
  'prioritized',
] as const;

export const QueueStateSchema = z
  .object({
    paused: z.boolean(),
    counts: z
      .record(z.enum(JOB_STATES), z.int())
      .meta({ description: 'Jobs in Redis per BullMQ state' }),
    workers: z.int().meta({ description: 'Worker connections BullMQ sees on the queue' }),
    oldestWaitingAgeSeconds: z.number().nullable(),
    throughput: z
      .array(z.object({ minute: z.iso.datetime(), accepted: z.int(), applied: z.int() }))
      .meta({
        description: 'Events accepted and applied per minute over the last hour, oldest first',
      }),
  })
  .meta({ id: 'QueueState' });
export type QueueState = z.infer<typeof QueueStateSchema>;

const jsonObject = z
  .string()
  .max(10_000)
  .transform((text, context) => {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // reported below
    }
    context.addIssue({
      code: 'custom',
      message: 'must be a JSON object, such as {"title":"Hello"}',
    });
    return z.NEVER;
  });

/** Filters of the operator event search; also the body of a bulk retry. */
export const EventSearchFields = {
  status: z.enum(EVENT_STATUSES).optional(),
  event: z.string().max(100).optional(),
  accountId: z.uuid().optional(),
  apiKeyId: z.uuid().optional(),
  slug: z.string().max(120).optional(),
  from: z.iso.datetime({ offset: true }).optional().meta({ description: 'Received at or after' }),
  to: z.iso.datetime({ offset: true }).optional().meta({ description: 'Received before' }),
  payload: jsonObject.optional().meta({
    description:
      'JSON object the payload must contain (JSONB containment), e.g. {"category":"News"}',
  }),
};
export const EventSearchQuerySchema = z.strictObject({ ...EventSearchFields, ...PageQueryFields });
export type EventSearchQuery = z.infer<typeof EventSearchQuerySchema>;
export type EventSearchFilters = Omit<EventSearchQuery, 'limit' | 'cursor'>;

export const OperatorEventSchema = ReceiptSchema.extend({
  accountId: z.uuid(),
  apiKeyId: z.uuid().nullable(),
  requestId: z.string(),
}).meta({ id: 'OperatorEvent' });
export type OperatorEvent = z.infer<typeof OperatorEventSchema>;

export const EventSearchResultSchema = pageOf(OperatorEventSchema).meta({
  id: 'EventSearchResult',
});

export const EventAttemptSchema = z
  .object({
    number: z.int(),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().nullable(),
    outcome: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).loose().nullable(),
  })
  .meta({ id: 'EventAttempt' });

export const EventDetailSchema = OperatorEventSchema.extend({
  payload: z.unknown(),
  orderKeys: z.array(z.string()),
  account: z.object({ id: z.uuid(), handle: z.string(), email: z.string() }),
  attemptsLog: z.array(EventAttemptSchema),
}).meta({ id: 'EventDetail' });
export type EventDetail = z.infer<typeof EventDetailSchema>;

export const BulkRetryRequestSchema = z.strictObject({
  status: z.literal('failed').default('failed'),
  event: EventSearchFields.event,
  accountId: EventSearchFields.accountId,
  apiKeyId: EventSearchFields.apiKeyId,
  slug: EventSearchFields.slug,
  from: EventSearchFields.from,
  to: EventSearchFields.to,
  payload: z.record(z.string(), z.unknown()).optional(),
});
export const BulkRetryResultSchema = z.object({ retried: z.int() }).meta({ id: 'BulkRetryResult' });
export const PauseStateSchema = z.object({ paused: z.boolean() }).meta({ id: 'PauseState' });
