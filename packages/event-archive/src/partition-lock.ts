import { setTimeout as sleep } from 'node:timers/promises';
import { withPartitionLock } from '@ingest/event-log';
import type pg from 'pg';

export interface LockRetry {
  /** Tries at taking the partition-maintenance lock before giving up. */
  lockAttempts?: number;
  /** Pause between tries. */
  lockRetryMs?: number;
}

/**
 * Runs `work` under the event log's partition-maintenance lock, waiting a little when
 * another process holds it: maintenance (which may be archiving a period right now) or
 * another restore. Fails with a message an operator can act on when it stays taken.
 */
export async function underPartitionLock<Result extends object>(
  pool: pg.Pool,
  what: string,
  work: (client: pg.PoolClient) => Promise<Result>,
  { lockAttempts = 10, lockRetryMs = 2_000 }: LockRetry = {},
): Promise<Result> {
  for (let attempt = 1; ; attempt += 1) {
    const result = await withPartitionLock(pool, work);
    if (result !== undefined) return result;
    if (attempt >= lockAttempts)
      throw new Error(
        `another process (partition maintenance or a restore) held the event-log partition lock through ${lockAttempts} tries: ${what} not done; try again later`,
      );
    await sleep(lockRetryMs);
  }
}
