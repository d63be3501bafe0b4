import {
  attach,
  EVENT_LOG_TABLES,
  idBoundaryAt,
  quoted,
  type EventLogTable,
  type Queryable,
} from '@ingest/event-log';
import type { PeriodRange } from './period-range.js';

const KEY: Record<EventLogTable, string> = { webhook_logs: 'id', event_attempts: 'event_id' };

const rangeCheckName = (name: string) => quoted(`${name}_restored_range`);

/**
 * Creates the restored partitions as plain tables, with their parents' indexes and a
 * CHECK of the range, before any row is loaded. ATTACH then finds every index it needs
 * and a constraint that implies the partition bound, so it builds nothing and scans
 * nothing: the locks it takes, which hold writes to the log and to accounts while the
 * loaded rows' foreign keys are checked, last only that long.
 */
export async function createRestoredTables(
  on: Queryable,
  partitions: Record<EventLogTable, string>,
  range: PeriodRange,
): Promise<void> {
  for (const table of EVENT_LOG_TABLES) {
    const name = partitions[table];
    const key = KEY[table];
    const lower = range.fromMs === null ? '' : ` AND ${key} >= '${idBoundaryAt(range.fromMs)}'`;
    await on.query(`CREATE TABLE ${quoted(name)} (LIKE ${quoted(table)} INCLUDING INDEXES)`);
    await on.query(
      `ALTER TABLE ${quoted(name)} ADD CONSTRAINT ${rangeCheckName(name)}
       CHECK (${key} IS NOT NULL${lower} AND ${key} < '${idBoundaryAt(range.toMs)}')`,
    );
  }
}

/** Attaches the loaded tables, events first. */
export async function attachRestored(
  on: Queryable,
  partitions: Record<EventLogTable, string>,
  range: PeriodRange,
): Promise<void> {
  for (const table of EVENT_LOG_TABLES) {
    await attach(on, { table, name: partitions[table], ...range });
    // The partition bound says the same now.
    await on.query(
      `ALTER TABLE ${quoted(partitions[table])} DROP CONSTRAINT ${rangeCheckName(partitions[table])}`,
    );
  }
}
