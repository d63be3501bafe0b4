import type { Queryable } from '../queryable.js';
import { DAY_MS, idBoundaryAt, timeOfBoundary } from './partition-range.js';

/** The tables partitioned by event id, parent first: attempts reference their event. */
export const EVENT_LOG_TABLES = ['webhook_logs', 'event_attempts'] as const;
export type EventLogTable = (typeof EVENT_LOG_TABLES)[number];

export interface Partition {
  table: EventLogTable;
  name: string;
  /** First moment of its id range; null for the one open below (MINVALUE). */
  fromMs: number | null;
  /** The moment its id range ends (exclusive). */
  toMs: number;
  /** A DETACH CONCURRENTLY was interrupted: the partition waits to be finalised. */
  detachPending: boolean;
  /** Loaded back from an archive (`pnpm events:restore`): kept until an operator drops it. */
  restored: boolean;
}

/**
 * A restored period's name: the table, `_r`, and the UTC date its ids start on (`legacy`
 * for the period open below), e.g. `webhook_logs_r20261023`. Retention never drops these.
 */
export function restoredPartitionName(table: EventLogTable, fromMs: number | null): string {
  if (fromMs === null) return `${table}_rlegacy`;
  // The hour too when the period starts within a day (hourly partitions).
  const iso = new Date(fromMs).toISOString();
  const day = iso.slice(0, 10).replaceAll('-', '');
  return `${table}_r${day}${fromMs % DAY_MS === 0 ? '' : iso.slice(11, 13)}`;
}

const RESTORED = /^(?:webhook_logs|event_attempts)_r/;

const BOUND = /FROM \((?:MINVALUE|'([0-9a-f-]{36})')\) TO \('([0-9a-f-]{36})'\)/;

/** Every partition of the event-log tables, oldest first, read from the catalog. */
export async function listPartitions(on: Queryable): Promise<Partition[]> {
  const { rows } = await on.query<{
    table: EventLogTable;
    name: string;
    bound: string;
    detach_pending: boolean;
  }>(
    `SELECT parent.relname AS "table", child.relname AS name,
            pg_get_expr(child.relpartbound, child.oid) AS bound,
            i.inhdetachpending AS detach_pending
     FROM pg_inherits i
     JOIN pg_class parent ON parent.oid = i.inhparent
     JOIN pg_class child ON child.oid = i.inhrelid
     WHERE parent.relname = ANY($1::text[]) AND child.relkind = 'r'
       AND parent.relnamespace = current_schema()::regnamespace`,
    [EVENT_LOG_TABLES],
  );
  return rows
    .map((row): Partition => {
      const match = BOUND.exec(row.bound);
      if (match === null)
        throw new Error(`unexpected partition bound on ${row.name}: ${row.bound}`);
      return {
        table: row.table,
        name: row.name,
        fromMs: match[1] === undefined ? null : timeOfBoundary(match[1]),
        toMs: timeOfBoundary(match[2]!),
        detachPending: row.detach_pending,
        restored: RESTORED.test(row.name),
      };
    })
    .sort((a, b) => a.toMs - b.toMs || a.table.localeCompare(b.table));
}

/**
 * Tables left detached by a retention run that stopped between detaching and dropping
 * (named like a partition of an event-log table, but no longer one).
 */
export async function listDetached(
  on: Queryable,
): Promise<Array<{ table: EventLogTable; name: string }>> {
  const { rows } = await on.query<{ table: EventLogTable; name: string }>(
    `SELECT t.parent AS "table", c.relname AS name
     FROM unnest($1::text[]) AS t(parent)
     JOIN pg_class c ON c.relname LIKE t.parent || '\\_%' AND c.relkind = 'r' AND NOT c.relispartition
      AND c.relname NOT LIKE t.parent || '\\_r%'
      AND c.relnamespace = current_schema()::regnamespace
     ORDER BY c.relname`,
    [EVENT_LOG_TABLES],
  );
  return rows;
}

/** `"name"`, for DDL: partition names are generated, but quoting keeps them inert. */
export const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** Attaches `partition` to its table over its id range (MINVALUE when it is open below). */
export async function attach(
  on: Queryable,
  partition: Pick<Partition, 'table' | 'name' | 'fromMs' | 'toMs'>,
): Promise<void> {
  const from = partition.fromMs === null ? 'MINVALUE' : `'${idBoundaryAt(partition.fromMs)}'`;
  await on.query(
    `ALTER TABLE ${quoted(partition.table)} ATTACH PARTITION ${quoted(partition.name)}
     FOR VALUES FROM (${from}) TO ('${idBoundaryAt(partition.toMs)}')`,
  );
}
