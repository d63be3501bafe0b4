import { z } from 'zod';
import { ACCOUNT_ID_OR_HANDLE } from './admin.js';
import { AdminEndpointSchema } from './admin-deliveries.js';
import { ApiKeySummarySchema } from './api-keys.js';

/** The highest queue weight an operator may give an account. */
export const MAX_QUEUE_WEIGHT = 1_000;

/** An account's share of the service, relative to other accounts; set by operators. */
export const AccountShareSchema = z
  .strictObject({
    weight: z.int().min(1).max(MAX_QUEUE_WEIGHT).meta({
      description:
        'Its share relative to others (1 by default): of the API under load, of its content rate limit (RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE times this), and of the workers, which take its events this many times as often as those of an account of weight 1 while both wait',
    }),
    maxInFlight: z.int().min(1).max(10_000).nullable().meta({
      description:
        'At most this many of its events applied at once, over every worker (an event that brings its run counts once); null: no cap',
    }),
  })
  .meta({ id: 'AccountShare' });
export type AccountShare = z.infer<typeof AccountShareSchema>;

export const DEFAULT_ACCOUNT_SHARE: AccountShare = { weight: 1, maxInFlight: null };

/**
 * The longest retention the contract takes; the operator's bounds
 * (EVENT_LOG_RETENTION_MIN_DAYS, EVENT_LOG_RETENTION_MAX_DAYS) are checked by the service.
 */
export const MAX_RETENTION_DAYS = 100 * 365;

/** An operator's setting of an account's retention in the event log. */
export const AccountRetentionRequestSchema = z
  .strictObject({
    days: z.int().min(1).max(MAX_RETENTION_DAYS).nullable().meta({
      description:
        'Days the event log keeps its events, from EVENT_LOG_RETENTION_MIN_DAYS to EVENT_LOG_RETENTION_MAX_DAYS (1 to 3650 unless the operator set them); null: the default (EVENT_LOG_RETENTION_DAYS)',
    }),
  })
  .meta({ id: 'AccountRetentionRequest', examples: [{ days: 7 }] });
export type AccountRetentionRequest = z.infer<typeof AccountRetentionRequestSchema>;

/** How long the event log keeps an account's events. */
export const AccountRetentionSchema = z
  .object({
    days: AccountRetentionRequestSchema.shape.days.meta({
      description: 'Its own retention in days, as an operator set it; null: the default',
    }),
    effectiveDays: z.int().min(0).meta({
      description:
        'Days its events are kept: its own retention within the bounds in force, else EVENT_LOG_RETENTION_DAYS; 0: for ever. Past it its receipts answer 410 EVENT_EXPIRED, and its finished events are deleted',
    }),
  })
  .meta({ id: 'AccountRetention', examples: [{ days: 7, effectiveDays: 7 }] });
export type AccountRetention = z.infer<typeof AccountRetentionSchema>;

/** An account with events not yet finished: what it has waiting, and its share. */
export const AccountBacklogSchema = z
  .object({
    accountId: z.uuid(),
    handle: z.string(),
    queued: z.int().min(0).meta({ description: 'Events accepted and not yet taken' }),
    processing: z.int().min(0).meta({ description: 'Events being applied (or retried)' }),
    oldestWaitingAgeSeconds: z.number().nullable().meta({
      description: 'Seconds since its oldest queued event was accepted; null when none is queued',
    }),
    share: AccountShareSchema,
  })
  .meta({ id: 'AccountBacklog' });
export type AccountBacklog = z.infer<typeof AccountBacklogSchema>;

export const AccountBacklogListSchema = z
  .object({
    accounts: z.array(AccountBacklogSchema).meta({
      description: 'The accounts with the most unfinished events first',
    }),
  })
  .meta({ id: 'AccountBacklogList' });
export type AccountBacklogList = z.infer<typeof AccountBacklogListSchema>;

export const AccountBacklogQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const AccountIdParamsSchema = z.strictObject({ id: z.uuid() });

/** An account named by its id or its handle (any case), as the events search takes it. */
export const AccountRefParamsSchema = z.strictObject({
  id: z
    .string()
    .regex(ACCOUNT_ID_OR_HANDLE, { error: "must be an account's id (a UUID) or its handle" })
    .meta({ description: "The account's id, or its handle (any case)" }),
});

/** How many of an account's share changes its page shows, newest first. */
export const ACCOUNT_PAGE_SHARE_CHANGES = 20;
/** How many of its API keys and of its endpoints its page shows, newest first. */
export const ACCOUNT_PAGE_LIST_LIMIT = 50;
/** The most events of the last day an account's page counts: the newest this many. */
export const ACCOUNT_PAGE_EVENTS_READ = 100_000;

export const AccountShareChangeSchema = z
  .object({
    id: z.uuid(),
    changedAt: z.iso.datetime(),
    operator: z.object({
      id: z.uuid().nullable().meta({ description: "Null once the operator's account is gone" }),
      email: z.string().meta({
        description:
          "The operator's email when they made the change; `(erased operator)` once their account is erased",
      }),
    }),
    from: AccountShareSchema,
    to: AccountShareSchema,
  })
  .meta({ id: 'AccountShareChange' });
export type AccountShareChange = z.infer<typeof AccountShareChangeSchema>;

const count = () => z.int().min(0);

/** What became of the account's events received in one window. */
export const AccountEventCountsSchema = z
  .object({
    accepted: count().meta({ description: 'Events received and not rejected' }),
    applied: count().meta({ description: 'Of those, applied (succeeded)' }),
    failed: count(),
    rejected: count().meta({ description: 'Calls refused by validation, recorded as events' }),
  })
  .meta({ id: 'AccountEventCounts' });
export type AccountEventCounts = z.infer<typeof AccountEventCountsSchema>;

export const AccountErrorCountSchema = z
  .object({
    code: z.string().meta({ description: "The event's error code; UNKNOWN when it has none" }),
    lastHour: count(),
    lastDay: count(),
  })
  .meta({ id: 'AccountErrorCount' });
export type AccountErrorCount = z.infer<typeof AccountErrorCountSchema>;

export const AccountActivitySchema = z
  .object({
    lastHour: AccountEventCountsSchema,
    lastDay: AccountEventCountsSchema,
    failures: z.array(AccountErrorCountSchema).meta({
      description: 'Failed events by error code, the most in the last day first',
    }),
    refusals: z.array(AccountErrorCountSchema).meta({
      description: 'Rejected events by error code, the most in the last day first',
    }),
    capped: z.boolean().meta({
      description: `Whether the last day held more events than are counted (the newest ${ACCOUNT_PAGE_EVENTS_READ}): the day's figures are then those of its newest events`,
    }),
  })
  .meta({
    id: 'AccountActivity',
    description: 'Events received in the last hour and the last 24 hours, from the event log',
  });
export type AccountActivity = z.infer<typeof AccountActivitySchema>;

/** One account as an operator looks into it. */
export const AccountPageSchema = z
  .object({
    id: z.uuid(),
    handle: z.string(),
    email: z.string(),
    createdAt: z.iso.datetime(),
    backlog: z.object({
      queued: AccountBacklogSchema.shape.queued,
      processing: AccountBacklogSchema.shape.processing,
      oldestWaitingAgeSeconds: AccountBacklogSchema.shape.oldestWaitingAgeSeconds,
    }),
    share: AccountShareSchema,
    retention: AccountRetentionSchema,
    rateLimits: z
      .object({
        contentPerMinute: z.int().min(1),
        receiptsPerMinute: z.int().min(1),
      })
      .meta({
        description:
          "The account's rate limits: the service's per-account limits times its share's weight",
      }),
    shareChanges: z.array(AccountShareChangeSchema).meta({
      description: `Who changed its share, when, from what to what: the newest ${ACCOUNT_PAGE_SHARE_CHANGES} first`,
    }),
    apiKeys: z.array(ApiKeySummarySchema).meta({
      description: `Its newest ${ACCOUNT_PAGE_LIST_LIMIT} API keys, revoked ones included; never a secret`,
    }),
    endpoints: z.array(AdminEndpointSchema).meta({
      description: `Its newest ${ACCOUNT_PAGE_LIST_LIMIT} webhook endpoints, with their last day's deliveries`,
    }),
    activity: AccountActivitySchema,
  })
  .meta({ id: 'AccountPage' });
export type AccountPage = z.infer<typeof AccountPageSchema>;
