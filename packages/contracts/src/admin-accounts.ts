import { z } from 'zod';

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
