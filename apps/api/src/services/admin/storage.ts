import type { EventLogPartition, EventLogStorage, PartitionState } from '@ingest/contracts';
import {
  expiredPartitions,
  heldPartitions,
  listPartitions,
  readLongestRetention,
  type HeldPartition,
  type Partition,
} from '@ingest/event-log';
import type pg from 'pg';
// Clients, not deps.ts: the API's metrics (metrics.ts, which deps.ts names) read this too.
import type { ApiClients } from '../../clients.js';
import { retentionPolicyOf } from '../account-retention.js';

type Deps = Pick<ApiClients, 'db' | 'config'>;

const DAY_MS = 24 * 3_600_000;

interface MeasuredPartition extends Partition {
  sizeBytes: number;
  rowsEstimate: number | null;
}

/**
 * Each partition's size and row estimate, from the catalog and the statistics collector
 * alone: no partition is scanned. The planner's estimate (reltuples) is -1 until a
 * partition is first vacuumed or analysed, which for the day's partition is often never
 * while it is written: then the collector's count of live rows, kept as rows are written,
 * stands in. A partition dropped since it was listed measures 0.
 */
async function measure(pool: pg.Pool, partitions: Partition[]): Promise<MeasuredPartition[]> {
  const { rows } = await pool.query<{ name: string; bytes: string | null; tuples: number | null }>(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes,
            CASE WHEN c.reltuples >= 0 THEN c.reltuples ELSE s.n_live_tup END AS tuples
     FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
     WHERE c.relname = ANY($1::text[]) AND c.relnamespace = current_schema()::regnamespace`,
    [partitions.map((partition) => partition.name)],
  );
  const byName = new Map(rows.map((row) => [row.name, row]));
  return partitions.map((partition) => {
    const row = byName.get(partition.name);
    return {
      ...partition,
      sizeBytes: Number(row?.bytes ?? 0),
      rowsEstimate:
        row === undefined || row.tuples === null || row.tuples < 0 ? null : Math.round(row.tuples),
    };
  });
}

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
/** The two tables' partitions of one period share their bounds. */
const periodOf = (partition: { fromMs: number | null; toMs: number }): string =>
  `${partition.fromMs ?? 'min'}-${partition.toMs}`;

const unfinishedCounts = (held: HeldPartition) => ({
  queued: held.unfinished.queued ?? 0,
  processing: held.unfinished.processing ?? 0,
});

function present(
  partition: MeasuredPartition,
  expired: ReadonlySet<string>,
  heldByPeriod: ReadonlyMap<string, HeldPartition>,
  now: number,
): EventLogPartition {
  const held = expired.has(partition.name) ? heldByPeriod.get(periodOf(partition)) : undefined;
  let state: PartitionState;
  if (partition.restored) state = 'restored';
  else if (held !== undefined) state = 'held';
  else if (expired.has(partition.name)) state = 'expiring';
  else if (partition.fromMs !== null && partition.fromMs > now) state = 'future';
  else state = 'current';
  const shown: EventLogPartition = {
    table: partition.table,
    name: partition.name,
    from: isoOrNull(partition.fromMs),
    to: iso(partition.toMs),
    sizeBytes: partition.sizeBytes,
    rowsEstimate: partition.rowsEstimate,
    state,
    detachPending: partition.detachPending,
  };
  if (held === undefined) return shown;
  // Retention detaches a period's attempts with its events, so they are held together.
  if (partition.table !== 'webhook_logs')
    return { ...shown, heldReason: `kept with ${held.name}, which ${held.reason}` };
  return { ...shown, heldReason: held.reason, unfinished: unfinishedCounts(held) };
}

/**
 * The event log's storage as retention sees it: every partition with its size, row
 * estimate and state, the totals, the next partition to be dropped and those held, all
 * by the longest retention in force (the default's or an account's own), past which the
 * workers drop partitions. Reads the catalog, the accounts with a retention of their own
 * and the unfinished events of expired partitions (two partial indexes).
 */
export async function eventLogStorage(deps: Deps, now = Date.now()): Promise<EventLogStorage> {
  const { retentionDays, interval, archiveDir } = deps.config.eventLog;
  const { pool } = deps.db;
  const longest = await readLongestRetention(pool, retentionPolicyOf(deps.config.eventLog));
  const [partitions, held] = await Promise.all([
    listPartitions(pool).then((listed) => measure(pool, listed)),
    heldPartitions(pool, longest, now),
  ]);
  const expired = new Set(
    expiredPartitions(partitions, longest, now).map((partition) => partition.name),
  );
  const heldByPeriod = new Map(held.map((partition) => [periodOf(partition), partition]));

  const totals: EventLogStorage['totals'] = {
    webhook_logs: { sizeBytes: 0, partitions: 0 },
    event_attempts: { sizeBytes: 0, partitions: 0 },
  };
  for (const partition of partitions) {
    const total = totals[partition.table];
    total.sizeBytes += partition.sizeBytes;
    total.partitions += 1;
  }
  const events = partitions.filter(
    (partition) => partition.table === 'webhook_logs' && !partition.restored,
  );
  // Sorted by the end of their ranges: the first one retention may drop goes first.
  const next =
    longest === 0 ? undefined : events.find((partition) => !heldByPeriod.has(periodOf(partition)));
  const newest = events.at(-1);

  return {
    retentionDays,
    longestRetentionDays: longest,
    partitionInterval: interval,
    archive: { enabled: archiveDir !== null },
    partitions: partitions.map((partition) => present(partition, expired, heldByPeriod, now)),
    totals,
    premadeUntil: newest === undefined ? null : iso(newest.toMs),
    nextDrop:
      next === undefined ? null : { partition: next.name, at: iso(next.toMs + longest * DAY_MS) },
    held: held.map((partition) => ({
      name: partition.name,
      from: isoOrNull(partition.fromMs),
      to: iso(partition.toMs),
      unfinished: unfinishedCounts(partition),
      reason: partition.reason,
    })),
  };
}
