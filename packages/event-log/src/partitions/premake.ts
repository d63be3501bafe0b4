import type { Queryable } from '../queryable.js';
import { attach, EVENT_LOG_TABLES, listPartitions, quoted, type EventLogTable } from './catalog.js';
import {
  nextBoundary,
  partitionName,
  periodStart,
  type PartitionInterval,
} from './partition-range.js';

export interface PremakeOptions {
  interval: PartitionInterval;
  /** Partitions exist up to at least this far past `now`. */
  aheadMs: number;
  now?: number;
}

/**
 * Creates the partitions each event-log table lacks from the end of its newest one (or
 * the current period, on a table with none) until `aheadMs` past now, on the interval's
 * grid. A partition is created as a plain table and then attached: ATTACH takes a SHARE
 * UPDATE EXCLUSIVE lock on the parent, which inserts and reads pass, where CREATE TABLE
 * ... PARTITION OF would take an exclusive one. Idempotent; run under withPartitionLock.
 * Returns the names created.
 */
export async function premakePartitions(on: Queryable, options: PremakeOptions): Promise<string[]> {
  const now = options.now ?? Date.now();
  const until = now + options.aheadMs;
  const partitions = await listPartitions(on);
  const created: string[] = [];
  for (const table of EVENT_LOG_TABLES) {
    const ends = partitions.filter((partition) => partition.table === table).map((p) => p.toMs);
    let start = ends.length === 0 ? periodStart(now, options.interval) : Math.max(...ends);
    while (start < until) {
      const end = nextBoundary(start, options.interval);
      created.push(await createPartition(on, table, start, end, options.interval));
      start = end;
    }
  }
  return created;
}

/** Creates and attaches the partition of `table` for ids made in [startMs, endMs). */
export async function createPartition(
  on: Queryable,
  table: EventLogTable,
  startMs: number,
  endMs: number,
  interval: PartitionInterval,
): Promise<string> {
  const name = partitionName(table, startMs, interval);
  // A table left by an attach that failed (a lock timeout) is reused: it is empty.
  await on.query(`CREATE TABLE IF NOT EXISTS ${quoted(name)} (LIKE ${quoted(table)})`);
  await attach(on, { table, name, fromMs: startMs, toMs: endMs });
  await nameIndexesAfterParents(on, table, name);
  return name;
}

/**
 * ATTACH names a partition's indexes after their columns, so two on the same columns (the
 * status index and the partial unfinished one) come out as `…_idx` and `…_idx1`, in no
 * promised order. Renamed after their parents' instead (`webhook_logs_p20261123_unfinished_idx`
 * for `webhook_logs_unfinished_idx`), so that a plan, a lock or a size says which index it
 * is. Through temporary names first, as two of them may trade names.
 */
async function nameIndexesAfterParents(on: Queryable, table: string, partition: string) {
  const { rows } = await on.query<{ child: string; parent: string; oid: number }>(
    `SELECT c.relname AS child, p.relname AS parent, c.oid
     FROM pg_index x
     JOIN pg_class c ON c.oid = x.indexrelid
     JOIN pg_inherits i ON i.inhrelid = c.oid
     JOIN pg_class p ON p.oid = i.inhparent
     WHERE x.indrelid = $1::regclass`,
    [quoted(partition)],
  );
  const renames = rows
    .map((row) => ({ ...row, wanted: `${partition}${row.parent.slice(table.length)}` }))
    .filter((row) => row.child !== row.wanted);
  for (const row of renames) {
    await on.query(
      `ALTER INDEX ${quoted(row.child)} RENAME TO ${quoted(`${partition}_i${row.oid}`)}`,
    );
  }
  for (const row of renames) {
    await on.query(
      `ALTER INDEX ${quoted(`${partition}_i${row.oid}`)} RENAME TO ${quoted(row.wanted)}`,
    );
  }
}
