import type pg from 'pg';
import { withPartitionLock } from './maintenance-lock.js';
import { DAY_MS, type PartitionInterval } from './partition-range.js';
import { summarizeClosedPartitions } from './key-summaries.js';
import { premakePartitions } from './premake.js';
import { runRetention, type RetentionOptions, type RetentionReport } from './retention.js';

/** Partitions are made at least this far ahead, so a week without maintenance loses nothing. */
export const PREMAKE_DAYS = 7;

export interface PartitionMaintenance extends RetentionOptions {
  interval: PartitionInterval;
}

/**
 * One round of event-log upkeep: make the partitions of the coming week, drop the expired
 * ones, then list the order keys of those that closed (for slug searches). Returns
 * undefined when another process is doing it right now.
 */
export async function maintainPartitions(
  pool: pg.Pool,
  options: PartitionMaintenance,
): Promise<({ created: string[]; summarized: string[] } & RetentionReport) | undefined> {
  return withPartitionLock(pool, async (client) => {
    const created = await premakePartitions(client, {
      interval: options.interval,
      aheadMs: PREMAKE_DAYS * DAY_MS,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    const report = await runRetention(client, options);
    const summarized = await summarizeClosedPartitions(client, options.now);
    return { created, ...report, summarized };
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
