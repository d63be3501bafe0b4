import { z } from 'zod';
import { envInteger } from './env-fields.js';

/**
 * The bounds within which an operator sets an account's own event-log retention
 * (`PUT /api/admin/accounts/:id/retention`). At least a day: a shorter one would delete
 * events their publishers are still reading receipts of. At most ten years by default:
 * the longest a publisher is known to need (seven years) with room to spare, and short
 * enough that one account cannot keep every partition for a century by mistake.
 */
export const RetentionBoundsEnvSchema = z.object({
  EVENT_LOG_RETENTION_MIN_DAYS: envInteger(1, { min: 1, max: 100 * 365 }),
  EVENT_LOG_RETENTION_MAX_DAYS: envInteger(3_650, { min: 1, max: 100 * 365 }),
});

type RetentionEnv = z.output<typeof RetentionBoundsEnvSchema> & {
  EVENT_LOG_RETENTION_DAYS: number;
};

const FIELDS: readonly PropertyKey[] = [
  'EVENT_LOG_RETENTION_DAYS',
  'EVENT_LOG_RETENTION_MIN_DAYS',
  'EVENT_LOG_RETENTION_MAX_DAYS',
];

/**
 * min <= max, and the default within them unless it is 0 (keep everything: the accounts
 * with a retention of their own are then the only ones whose events go). Checked once the
 * three parsed, whatever else failed, so that its problem is listed with the others.
 */
export const retentionBoundsHold = z.superRefine<RetentionEnv>(
  (env, ctx) => {
    const min = env.EVENT_LOG_RETENTION_MIN_DAYS;
    const max = env.EVENT_LOG_RETENTION_MAX_DAYS;
    const fallback = env.EVENT_LOG_RETENTION_DAYS;
    if (min > max) {
      ctx.addIssue({
        code: 'custom',
        path: ['EVENT_LOG_RETENTION_MIN_DAYS'],
        message: `must not exceed EVENT_LOG_RETENTION_MAX_DAYS (${min} > ${max})`,
      });
    } else if (fallback !== 0 && (fallback < min || fallback > max)) {
      ctx.addIssue({
        code: 'custom',
        path: ['EVENT_LOG_RETENTION_DAYS'],
        message: `must be 0 (keep everything) or from EVENT_LOG_RETENTION_MIN_DAYS to EVENT_LOG_RETENTION_MAX_DAYS (${min} to ${max}); it is ${fallback}`,
      });
    }
  },
  { when: (payload) => !payload.issues.some((issue) => FIELDS.includes(issue.path?.[0] ?? '')) },
);

export const retentionBoundsOf = (env: RetentionEnv) => ({
  minDays: env.EVENT_LOG_RETENTION_MIN_DAYS,
  maxDays: env.EVENT_LOG_RETENTION_MAX_DAYS,
});
