import type pg from 'pg';
import { withPartitionLock } from './maintenance-lock.js';
import { DAY_MS, type PartitionInterval } from './partition-range.js';
import { summarizeClosedPartitions } from './key-summaries.js';
import { premakePartitions } from './premake.js';
import { runRetention, type RetentionOptions, type RetentionReport } from './retention.js';
import { expireAccountEvents, type AccountExpiryReport } from './account-expiry.js';
import { longestRetentionDays, readOwnRetentions } from './retention-policy.js';

/** Partitions are made at least this far ahead, so a week without maintenance loses nothing. */
export const PREMAKE_DAYS = 7;

/** Events of accounts with a shorter retention than the longest deleted per round, by default. */
export const EXPIRED_EVENTS_PER_ROUND = 50_000;

export interface PartitionMaintenance extends RetentionOptions {
  interval: PartitionInterval;
  /**
   * EVENT_LOG_RETENTION_MIN_DAYS and _MAX_DAYS, which bound an account's own retention;
   * unset: an account's own retention counts as it is.
   */
  retentionBounds?: { minDays: number; maxDays: number };
  /** Events of accounts with a shorter retention deleted per round at most. */
  maxExpiredEvents?: number;
}

export interface PartitionMaintenanceReport extends RetentionReport {
  created: string[];
  summarized: string[];
  /** The longest retention in force, which partitions were dropped past (0: none). */
  longestRetentionDays: number;
  expired: AccountExpiryReport;
}

/**
 * One round of event-log upkeep: make the partitions of the coming week, drop those past
 * the longest retention in force (`retentionDays` is the default's; an account's own may
 * be longer), list the order keys of those that closed (for slug searches), then delete
 * the events of accounts with a shorter retention, row by row. Returns undefined when
 * another process is doing it right now.
 */
export async function maintainPartitions(
  pool: pg.Pool,
  options: PartitionMaintenance,
): Promise<PartitionMaintenanceReport | undefined> {
  return withPartitionLock(pool, async (client) => {
    const created = await premakePartitions(client, {
      interval: options.interval,
      aheadMs: PREMAKE_DAYS * DAY_MS,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    const policy = {
      defaultDays: options.retentionDays,
      minDays: options.retentionBounds?.minDays ?? 1,
      maxDays: options.retentionBounds?.maxDays ?? Number.MAX_SAFE_INTEGER,
    };
    const own = await readOwnRetentions(client);
    const longest = longestRetentionDays(policy, own.values());
    const report = await runRetention(client, { ...options, retentionDays: longest });
    const summarized = await summarizeClosedPartitions(client, options.now);
    const expired = await expireAccountEvents(client, {
      policy,
      own,
      longestDays: longest,
      maxEvents: options.maxExpiredEvents ?? EXPIRED_EVENTS_PER_ROUND,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    return { created, ...report, summarized, longestRetentionDays: longest, expired };
  });
}

/**
 * Only the first half of a round: the coming week's partitions. The API runs it at start,
 * so a database fresh from its migrations takes events before any worker has run.
 */
export async function premakeAhead(
  pool: pg.Pool,
  interval: PartitionInterval,
): Promise<string[] | undefined> {
  return withPartitionLock(pool, (client) =>
    premakePartitions(client, { interval, aheadMs: PREMAKE_DAYS * DAY_MS }),
  );
}
