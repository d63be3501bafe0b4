import { z } from 'zod';
import { isStorableJson, STORABLE_JSON_MESSAGE, storableText, timestamp } from './safe-text.js';
import { pageOf, PageQueryFields } from './pagination.js';
import { EVENT_STATUSES, ReceiptSchema } from './receipts.js';

/** Events counted at most by a count that must stay cheap: a search's, the kept failures'. */
export const EVENT_COUNT_LIMIT = 10_000;

/** A count of events that stops at EVENT_COUNT_LIMIT. */
export const BoundedCountSchema = z.object({
  count: z.int().min(0),
  exact: z.boolean().meta({
    description: `False when there are more than ${EVENT_COUNT_LIMIT.toLocaleString('en')}: \`count\` is then that bound`,
  }),
});
export type BoundedCount = z.infer<typeof BoundedCountSchema>;

/** A count of the succeeded events the log keeps: exact up to EVENT_COUNT_LIMIT, then an estimate. */
const SucceededCountSchema = BoundedCountSchema.extend({
  estimate: z
    .int()
    .min(0)
    .nullable()
    .meta({
      description: `When \`exact\` is false: the planner's estimate of the log's rows less the unfinished, failed and rejected events counted, an approximation that reads no row. Null when the count is exact, or when the estimate is below ${EVENT_COUNT_LIMIT.toLocaleString('en')} (statistics not gathered yet)`,
    }),
});

/** How many of the newest applied events the queue state's lag is measured over. */
export const LAG_SAMPLE_EVENTS = 200;

export const QueueStateSchema = z
  .object({
    paused: z.boolean(),
    counts: z
      .object({
        waiting: z.int().min(0).meta({
          description:
            'Jobs of events accepted and not yet taken by a worker (prioritized included)',
        }),
        active: z.int().min(0),
        delayed: z.int().min(0).meta({
          description: 'Retries waiting, and jobs parked behind an earlier event of their line',
        }),
        failed: z.int().min(0),
        completed: z.int().min(0),
        paused: z.int().min(0),
        prioritized: z.int().min(0).meta({
          description:
            'Of the waiting jobs, those in the fair order between accounts (every job queued by this release)',
        }),
      })
      .meta({ description: 'Jobs in Redis per BullMQ state' }),
    workers: z.int().min(0).nullable().meta({
      description:
        'Worker connections BullMQ sees on the queue; null when Redis will not list its clients (CLIENT LIST refused or missing, as on some managed Redis)',
    }),
    oldestWaitingAgeSeconds: z.number().nullable().meta({
      description:
        "Seconds since the job next in line was queued (the head of the fair order); null when none waits. Older jobs may wait in a busy account's backlog: see GET /api/admin/queue/accounts",
    }),
    events: z
      .object({
        queued: z.int().min(0),
        processing: z.int().min(0),
        capped: z.boolean().meta({
          description: 'More than 100,000 events are unfinished: the counts stop there',
        }),
      })
      .meta({
        description:
          'Unfinished events in the event log: queued (waiting, parked or between retries) and processing (a retry or redelivery in flight)',
      }),
    kept: z
      .object({
        succeeded: SucceededCountSchema,
        failed: BoundedCountSchema,
        rejected: BoundedCountSchema,
      })
      .meta({
        description:
          'Succeeded, failed and rejected events in the event log, all it keeps (EVENT_LOG_RETENTION_DAYS): applied by a worker, failed for good in the worker, refused with a 400 by the API',
      }),
    lag: z
      .object({
        events: z.int().min(0).meta({ description: 'The applied events measured' }),
        p50Seconds: z.number().min(0).nullable(),
        maxSeconds: z.number().min(0).nullable(),
      })
      .meta({
        description: `Seconds from accepted to applied (receivedAt to finishedAt), median and highest, of the newest ${LAG_SAMPLE_EVENTS} events accepted in the last hour and applied, replays left out; null when there are none. Events still waiting are not in it: oldestWaitingAgeSeconds is theirs`,
      }),
  })
  .meta({ id: 'QueueState' });
export type QueueState = z.infer<typeof QueueStateSchema>;

const jsonObject = z
  .string()
  .max(10_000)
  .transform((text, context) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // reported below
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      context.addIssue({
        code: 'custom',
        message: 'must be a JSON object, such as {"title":"Hello"}',
      });
      return z.NEVER;
    }
    if (!isStorableJson(value)) {
      context.addIssue({ code: 'custom', message: STORABLE_JSON_MESSAGE });
      return z.NEVER;
    }
    return value as Record<string, unknown>;
  });

/** An account's id (a UUID) or its handle: a handle has no hyphen, so they never meet. */
export const ACCOUNT_ID_OR_HANDLE =
  /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z0-9_]{3,30})$/;

/** Filters of the operator event search; also the body of a bulk retry. */
export const EventSearchFields = {
  status: z.enum(EVENT_STATUSES).optional(),
  event: storableText(0, 100).optional(),
  accountId: z
    .string()
    .regex(ACCOUNT_ID_OR_HANDLE, { error: "must be an account's id (a UUID) or its handle" })
    .optional()
    .meta({ description: "The account's id, or its handle (any case)" }),
  apiKeyId: z.uuid().optional(),
  slug: storableText(0, 120).optional(),
  error: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, { error: 'must be an error code, such as SLUG_TAKEN' })
    .optional()
    .meta({ description: "The code of the event's error (failed and rejected events)" }),
  from: timestamp().optional().meta({ description: 'Received at or after' }),
  to: timestamp().optional().meta({ description: 'Received before' }),
  failedSince: timestamp().optional().meta({
    description:
      'Failed events only: those that failed at or after this time (their finishedAt), whenever they were received',
  }),
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
  accountHandle: z.string().nullable().meta({ description: 'Null once the account is gone' }),
  apiKeyId: z.uuid().nullable(),
  apiKeyName: z.string().nullable().meta({ description: "The key's name; null without a key" }),
  requestId: z.string(),
}).meta({ id: 'OperatorEvent' });
export type OperatorEvent = z.infer<typeof OperatorEventSchema>;

/** Matches an event search counts at most: as many as one bulk retry takes. */
export const EventSearchResultSchema = pageOf(OperatorEventSchema)
  .extend({
    matches: BoundedCountSchema.optional().meta({
      description: `How many events match the filters, counted up to ${EVENT_COUNT_LIMIT.toLocaleString('en')}. On the first page only (no \`cursor\`): later pages do not count again`,
    }),
  })
  .meta({ id: 'EventSearchResult' });
export type EventSearchResult = z.infer<typeof EventSearchResultSchema>;

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

/**
 * The error code of an event whose attempts ran out on a cause outside it (the database,
 * a bug). Every other code of a failed event is the event's own (ARTICLE_NOT_FOUND,
 * SLUG_TAKEN, VERSION_CONFLICT, ...): a retry meets it again unless the content changed.
 */
export const TRANSIENT_FAILURE_CODE = 'PROCESSING_FAILED';

export const BulkRetryRequestSchema = z.strictObject({
  status: z.literal('failed').default('failed'),
  event: EventSearchFields.event,
  accountId: EventSearchFields.accountId,
  apiKeyId: EventSearchFields.apiKeyId,
  slug: EventSearchFields.slug,
  error: EventSearchFields.error,
  from: EventSearchFields.from,
  to: EventSearchFields.to,
  failedSince: EventSearchFields.failedSince,
  payload: z
    .record(z.string(), z.unknown())
    .refine(isStorableJson, STORABLE_JSON_MESSAGE)
    .optional()
    .meta({ description: 'JSON object the payload must contain (JSONB containment)' }),
  includeOwnFailures: z
    .boolean()
    .default(false)
    .meta({
      description: `Also retry events that failed for a reason of their own (any code but ${TRANSIENT_FAILURE_CODE}), which a retry meets again unless the content changed meanwhile. Naming such a code in \`error\` asks for it too.`,
    }),
});
export type BulkRetryRequest = z.infer<typeof BulkRetryRequestSchema>;
export const BulkRetryResultSchema = z
  .object({
    retried: z.int(),
    leftOut: z.int().meta({
      description:
        'Matching events not retried: failed for a reason of their own (see includeOwnFailures)',
    }),
  })
  .meta({ id: 'BulkRetryResult' });
export type BulkRetryResult = z.infer<typeof BulkRetryResultSchema>;
export const BulkRetryPreviewSchema = z
  .object({
    willRetry: z.int().meta({ description: 'How many events the same request would retry now' }),
    leftOut: z.int().meta({ description: 'Matching events it would leave out' }),
    byCode: z
      .array(
        z.object({
          code: z.string(),
          events: z.int(),
          retried: z.boolean().meta({ description: 'Whether the retry takes these' }),
        }),
      )
      .meta({ description: 'The matching failed events by error code, most first' }),
    capped: z.boolean().meta({
      description: 'More than 100,000 events match: the counts are of the first 100,000',
    }),
  })
  .meta({ id: 'BulkRetryPreview' });
export type BulkRetryPreview = z.infer<typeof BulkRetryPreviewSchema>;
export const PauseStateSchema = z.object({ paused: z.boolean() }).meta({ id: 'PauseState' });
export type PauseState = z.infer<typeof PauseStateSchema>;
export const RetryAcceptedSchema = z
  .object({ id: z.uuid(), status: z.literal('queued') })
  .meta({ id: 'RetryAccepted' });
