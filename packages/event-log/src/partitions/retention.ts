import type pg from 'pg';
import type { Queryable } from '../queryable.js';
import { unfinished } from '../status.js';
import { attach, listDetached, listPartitions, quoted, type Partition } from './catalog.js';
import { DAY_MS } from './partition-range.js';

/** One period of the log, detached from its parents and about to be dropped. */
export interface DetachedPeriod {
  /** The webhook_logs table of the period, now a table of its own. */
  logs: string;
  /** Its event_attempts table, when there is one. */
  attempts: string | null;
}

/** Writes a detached period somewhere durable; resolves only once it is safe to drop. */
export type Archiver = (period: DetachedPeriod) => Promise<void>;

/** An expired partition kept because events in it are not finished. */
export interface HeldPartition {
  name: string;
  fromMs: number | null;
  toMs: number;
  /** Unfinished events in it, by status. */
  unfinished: Record<string, number>;
  reason: string;
}

export interface RetentionOptions {
  /** Days events are kept; 0 keeps everything. */
  retentionDays: number;
  /**
   * Expired periods one run drops at most (all of them when unset), the oldest first.
   * Dropping a period unlinks its files, which stalls every commit's fsync for a moment:
   * a backlog dropped at once adds those stalls up.
   */
  maxDrops?: number;
  archive?: Archiver;
  now?: number;
}

export interface RetentionReport {
  dropped: string[];
  held: HeldPartition[];
  /** Expired periods left for a later run by `maxDrops`. */
  deferred: string[];
}

/** Partitions whose every id is older than the retention period allows. */
export function expiredPartitions(
  partitions: Partition[],
  retentionDays: number,
  now: number,
): Partition[] {
  if (retentionDays === 0) return [];
  const cutoff = now - retentionDays * DAY_MS;
  return partitions.filter((partition) => partition.toMs <= cutoff && !partition.restored);
}

/** How many unfinished events `partition` holds, by status (reads the partial index). */
async function unfinishedIn(on: Queryable, table: string): Promise<Record<string, number>> {
  const { rows } = await on.query<{ status: string; count: number }>(
    `SELECT status, count(*)::int AS count FROM ${quoted(table)} WHERE ${unfinished()}
     GROUP BY status ORDER BY status DESC`,
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.count]));
}

const heldBecause = (unfinishedByStatus: Record<string, number>): string =>
  `holds ${Object.entries(unfinishedByStatus)
    .map(([status, count]) => `${count} ${status}`)
    .join(' and ')} event(s); it is dropped once they finish`;

/** The expired webhook_logs partitions that retention keeps, and why. */
export async function heldPartitions(
  on: Queryable,
  retentionDays: number,
  now = Date.now(),
): Promise<HeldPartition[]> {
  const expired = expiredPartitions(await listPartitions(on), retentionDays, now).filter(
    (partition) => partition.table === 'webhook_logs',
  );
  const held: HeldPartition[] = [];
  for (const partition of expired) {
    const counts = await unfinishedIn(on, partition.name);
    if (Object.keys(counts).length > 0) held.push(describeHeld(partition, counts));
  }
  return held;
}

const describeHeld = (partition: Partition, counts: Record<string, number>): HeldPartition => ({
  name: partition.name,
  fromMs: partition.fromMs,
  toMs: partition.toMs,
  unfinished: counts,
  reason: heldBecause(counts),
});

/**
 * Drops the partitions older than the retention period, never deleting a row. A period
 * is detached CONCURRENTLY (the parents stay open to inserts and reads), then checked
 * again for unfinished events, since an operator may have replayed one meanwhile and no
 * write can reach the detached table any more; then archived and dropped. Tables a
 * stopped run left detached are finished first, outside `maxDrops`. Run on the connection
 * withPartitionLock gives (DETACH CONCURRENTLY needs autocommit).
 */
export async function runRetention(
  client: pg.PoolClient,
  options: RetentionOptions,
): Promise<RetentionReport> {
  const report: RetentionReport = { dropped: [], held: [], deferred: [] };
  await finishInterruptedDetaches(client);
  await finishDetached(client, options.archive, report);
  const partitions = await listPartitions(client);
  const expired = expiredPartitions(partitions, options.retentionDays, options.now ?? Date.now());
  let drops = 0;
  for (const logs of expired.filter((partition) => partition.table === 'webhook_logs')) {
    if (drops >= (options.maxDrops ?? Number.POSITIVE_INFINITY)) {
      report.deferred.push(logs.name);
      continue;
    }
    const attempts = expired.find(
      (partition) =>
        partition.table === 'event_attempts' &&
        partition.fromMs === logs.fromMs &&
        partition.toMs === logs.toMs,
    );
    const before = await unfinishedIn(client, logs.name);
    if (Object.keys(before).length > 0) {
      report.held.push(describeHeld(logs, before));
      continue;
    }
    const held = await detachPeriod(client, logs, attempts);
    if (held !== undefined) {
      report.held.push(held);
      continue;
    }
    const period = { logs: logs.name, attempts: attempts?.name ?? null };
    await options.archive?.(period);
    await dropPeriod(client, period, report);
    drops += 1;
  }
  return report;
}

async function detachPeriod(
  client: Queryable,
  logs: Partition,
  attempts: Partition | undefined,
): Promise<HeldPartition | undefined> {
  if (attempts !== undefined) await detach(client, attempts);
  try {
    await detach(client, logs);
  } catch (error) {
    if (attempts !== undefined) await attach(client, attempts);
    throw error;
  }
  const after = await unfinishedIn(client, logs.name);
  if (Object.keys(after).length === 0) return undefined;
  await attach(client, logs);
  if (attempts !== undefined) await attach(client, attempts);
  return describeHeld(logs, after);
}

const detach = (client: Queryable, partition: Partition) =>
  client.query(
    `ALTER TABLE ${quoted(partition.table)} DETACH PARTITION ${quoted(partition.name)} CONCURRENTLY`,
  );

/**
 * The events first, then their attempts: a run stopped between the two leaves attempts
 * whose events are gone (dropped next time), never events whose attempts are, which the
 * next run would archive again without them.
 */
async function dropPeriod(client: Queryable, period: DetachedPeriod, report: RetentionReport) {
  await client.query(`DROP TABLE IF EXISTS ${quoted(period.logs)}`);
  if (period.attempts !== null)
    await client.query(`DROP TABLE IF EXISTS ${quoted(period.attempts)}`);
  report.dropped.push(period.logs);
}

/** A DETACH CONCURRENTLY interrupted by a crash leaves the partition pending: finish it. */
async function finishInterruptedDetaches(client: Queryable): Promise<void> {
  for (const partition of await listPartitions(client)) {
    if (!partition.detachPending) continue;
    await client.query(
      `ALTER TABLE ${quoted(partition.table)} DETACH PARTITION ${quoted(partition.name)} FINALIZE`,
    );
  }
}

/**
 * Tables a stopped run detached but did not drop: archived (if they hold rows) and
 * dropped now. An empty one may also be a partition premake created but failed to attach;
 * dropping it is harmless, premake makes it again.
 */
async function finishDetached(
  client: Queryable,
  archive: Archiver | undefined,
  report: RetentionReport,
): Promise<void> {
  const detached = await listDetached(client);
  const attemptsByPeriod = new Map(
    detached
      .filter((table) => table.table === 'event_attempts')
      .map((table) => [table.name.slice('event_attempts'.length), table.name]),
  );
  for (const logs of detached.filter((table) => table.table === 'webhook_logs')) {
    const suffix = logs.name.slice('webhook_logs'.length);
    const period = { logs: logs.name, attempts: attemptsByPeriod.get(suffix) ?? null };
    attemptsByPeriod.delete(suffix);
    const { rows } = await client.query(`SELECT 1 FROM ${quoted(logs.name)} LIMIT 1`);
    if (rows.length > 0) await archive?.(period);
    await dropPeriod(client, period, report);
  }
  // Attempts detached alone: put back beside their events when those are still attached;
  // otherwise their events were archived with them and dropped, and they go too.
  const attached = await listPartitions(client);
  for (const [suffix, name] of attemptsByPeriod) {
    const logs = attached.find(
      (p) => p.table === 'webhook_logs' && p.name === `webhook_logs${suffix}`,
    );
    if (logs === undefined) await client.query(`DROP TABLE IF EXISTS ${quoted(name)}`);
    else await attach(client, { ...logs, table: 'event_attempts', name });
  }
}
