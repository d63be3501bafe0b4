import type { Queryable } from '../queryable.js';

/** How long the log keeps events: the service's default, and the bounds of an account's own. */
export interface RetentionPolicy {
  /** EVENT_LOG_RETENTION_DAYS, for the accounts without a retention of their own; 0 keeps everything. */
  defaultDays: number;
  /** EVENT_LOG_RETENTION_MIN_DAYS and EVENT_LOG_RETENTION_MAX_DAYS. */
  minDays: number;
  maxDays: number;
}

/**
 * The days an account's events are kept: its own retention (`accounts.retention_days`),
 * else the default; 0 keeps them for ever. An own retention outside the bounds, set before
 * the operator narrowed them, counts as the nearer bound: the bounds in force win.
 */
export function effectiveRetentionDays(policy: RetentionPolicy, own: number | null): number {
  if (own === null) return policy.defaultDays;
  return Math.min(Math.max(own, policy.minDays), policy.maxDays);
}

/**
 * The longest retention in force: the default's or an account's own, whichever is longer;
 * 0 (for ever) when the default keeps everything. Partitions are dropped only past it, so
 * no account loses an event it keeps; accounts with a shorter one lose theirs row by row
 * (account-expiry.ts).
 */
export function longestRetentionDays(policy: RetentionPolicy, own: Iterable<number>): number {
  if (policy.defaultDays === 0) return 0;
  let longest = policy.defaultDays;
  for (const days of own) longest = Math.max(longest, effectiveRetentionDays(policy, days));
  return longest;
}

/**
 * The fewest days any account's events are kept: no event younger than this has aged out,
 * whoever's it is, so its account's retention need not be read. At least a day: an own
 * retention is at least EVENT_LOG_RETENTION_MIN_DAYS, and the default keeps everything
 * or at least as long.
 */
export function shortestRetentionDays(policy: RetentionPolicy): number {
  return policy.defaultDays === 0 ? policy.minDays : Math.min(policy.defaultDays, policy.minDays);
}

/** The accounts with a retention of their own, by id: a few rows, read off a partial index. */
export async function readOwnRetentions(on: Queryable): Promise<Map<string, number>> {
  const { rows } = await on.query<{ id: string; days: number }>(
    `SELECT id, retention_days AS days FROM accounts WHERE retention_days IS NOT NULL`,
  );
  return new Map(rows.map((row) => [row.id, row.days]));
}

/** The longest retention in force now, read from the accounts (see longestRetentionDays). */
export async function readLongestRetention(
  on: Queryable,
  policy: RetentionPolicy,
): Promise<number> {
  return longestRetentionDays(policy, (await readOwnRetentions(on)).values());
}
