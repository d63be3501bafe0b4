import { listPartitions, restoredPartitionName, type EventLogTable } from '@ingest/event-log';
import type pg from 'pg';
import type { RowTable } from './archive-files.js';
import { loadRows } from './load-rows.js';
import { verifiedArchive } from './manifest.js';
import { underPartitionLock, type LockRetry } from './partition-lock.js';
import type { PeriodRange } from './period-range.js';
import { attachRestored, createRestoredTables } from './restored-tables.js';

export interface RestoreReport {
  file: string;
  /** The restored partitions made, by table. */
  partitions: Record<EventLogTable, string>;
  rows: Record<RowTable, number>;
  range: PeriodRange;
}

export interface RestoreOptions extends LockRetry {
  /** Rows per INSERT. */
  batchRows?: number;
}

/**
 * Loads an archive written by createArchiver back into the live tables as a restored
 * partition pair (`*_r<date>`, which retention never drops), in one transaction: all of
 * it or none. Refuses an archive its manifest does not vouch for, one already restored,
 * and one whose range overlaps a partition the log still has.
 */
export async function restoreArchive(
  pool: pg.Pool,
  file: string,
  options: RestoreOptions = {},
): Promise<RestoreReport> {
  const { paths, manifest } = await verifiedArchive(file);
  const { range } = manifest;
  const batchRows = options.batchRows ?? 500;
  const partitions = {
    webhook_logs: restoredPartitionName('webhook_logs', range.fromMs),
    event_attempts: restoredPartitionName('event_attempts', range.fromMs),
  };
  return underPartitionLock(
    pool,
    'restore',
    async (client) => {
      await client.query('BEGIN');
      try {
        await refuseClashes(client, file, range, partitions);
        await createRestoredTables(client, partitions, range);
        const rows = await loadRows(client, paths.data, manifest, partitions, batchRows);
        await attachRestored(client, partitions, range);
        await client.query('COMMIT');
        return { file: paths.data, partitions, rows, range };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw explained(error);
      }
    },
    options,
  );
}

/** Refuses a restore that would duplicate rows or clash with the log's own partitions. */
async function refuseClashes(
  client: pg.PoolClient,
  file: string,
  range: PeriodRange,
  partitions: Record<EventLogTable, string>,
): Promise<void> {
  const live = await listPartitions(client);
  const { rows: taken } = await client.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class
     WHERE relname = ANY($1::text[]) AND relnamespace = current_schema()::regnamespace`,
    [Object.values(partitions)],
  );
  // The events' name first, the one an operator knows the pair by.
  for (const name of Object.values(partitions).filter((n) => taken.some((t) => t.name === n))) {
    const same = live.find(
      (p) => p.name === name && p.fromMs === range.fromMs && p.toMs === range.toMs,
    );
    throw new Error(
      same !== undefined
        ? `${file} is already restored, as ${name}; nothing done (drop it with pnpm events:restore --drop ${name} to restore it again)`
        : `a table named ${name} already exists (another period restored into the same name, or a drop that stopped half-way: finish it with pnpm events:restore --drop ${name}); nothing restored`,
    );
  }
  const low = (ms: number | null) => ms ?? -Infinity;
  const overlapping = live.filter((p) => low(p.fromMs) < range.toMs && low(range.fromMs) < p.toMs);
  if (overlapping.length > 0)
    throw new Error(
      `the archive's range [${describeMs(range.fromMs)}, ${describeMs(range.toMs)}) overlaps partition(s) the log still has: ${overlapping
        .map((p) => p.name)
        .join(', ')}; nothing restored`,
    );
}

const describeMs = (ms: number | null) =>
  ms === null ? 'the beginning' : new Date(ms).toISOString();

/** Errors PostgreSQL reports in its own words, said in the operator's. */
function explained(error: unknown): unknown {
  const { code, message, detail } = error as { code?: string; message?: string; detail?: string };
  if (code === '23503')
    return new Error(
      `archived rows refer to rows that no longer exist (${message}${detail === undefined ? '' : `: ${detail}`}), e.g. a deleted account or API key; nothing restored`,
    );
  if (code === '55P03')
    return new Error(
      `timed out waiting for a lock on the event log (${message}); nothing restored, try again`,
    );
  return error;
}
