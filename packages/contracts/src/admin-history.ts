import { z } from 'zod';
import { ACCOUNT_ID_OR_HANDLE } from './admin.js';

/**
 * Why a request was refused before any work was done for it: over its tenant's fair
 * share while the API is overloaded, the API full for everyone, or over the account's
 * configured rate limit. Named here, where the operators' history counts them.
 */
export const REFUSAL_REASONS = ['over_share', 'overloaded', 'rate_limit'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export const HISTORY_WINDOWS = {
  hour: { buckets: 60, bucketMinutes: 1 },
  day: { buckets: 144, bucketMinutes: 10 },
} as const;
export type HistoryWindow = keyof typeof HISTORY_WINDOWS;

export const HistoryQuerySchema = z.strictObject({
  window: z
    .enum(Object.keys(HISTORY_WINDOWS) as [HistoryWindow, ...HistoryWindow[]])
    .default('hour')
    .meta({ description: 'The last hour in minutes, or the last day in 10-minute buckets' }),
  account: z
    .string()
    .regex(ACCOUNT_ID_OR_HANDLE, { error: "must be an account's id (a UUID) or its handle" })
    .optional()
    .meta({
      description: "One account's history, by its handle or its id; the service's without",
    }),
});
export type HistoryQuery = z.infer<typeof HistoryQuerySchema>;

const count = (description: string) => z.int().min(0).meta({ description });

export const HistorySchema = z
  .strictObject({
    window: z.enum(Object.keys(HISTORY_WINDOWS) as [HistoryWindow, ...HistoryWindow[]]),
    bucketSeconds: z.int().min(60),
    accountId: z.uuid().nullable().meta({ description: 'The account asked for; null for all' }),
    points: z
      .array(
        z.strictObject({
          start: z.iso.datetime(),
          accepted: count('Events accepted'),
          applied: count('Events applied'),
          failed: count('Events that failed for good'),
          rejected: count('Events refused with a 400 and recorded'),
          refused: count('Requests refused with 429 or 503 (over share, overloaded, rate limited)'),
          depth: count('The most unfinished events (queued and processing) seen at once'),
          oldestWaitingSeconds: z.number().min(0).meta({
            description: 'The longest an event had waited, queued, when the backlog was sampled',
          }),
        }),
      )
      .meta({
        description:
          'Oldest first, the current bucket last. Counts are summed over the bucket; depth and oldest waiting are their highest, sampled every second by a worker',
      }),
    refusedByReason: z
      .strictObject(
        Object.fromEntries(REFUSAL_REASONS.map((reason) => [reason, z.int().min(0)])) as Record<
          RefusalReason,
          z.ZodInt
        >,
      )
      .meta({ description: 'Requests refused over the window, by reason' }),
  })
  .meta({ id: 'History' });
export type History = z.infer<typeof HistorySchema>;
