import type { Queryable } from '../queryable.js';
import { unfinished } from '../status.js';
import { listPartitions, quoted, type Partition } from './catalog.js';
import { DAY_MS, idBoundaryAt } from './partition-range.js';
import { effectiveRetentionDays, type RetentionPolicy } from './retention-policy.js';

/**
 * Events one statement deletes at most, with their attempts: small enough that a statement
 * holds its row locks and writes its WAL for a few tens of milliseconds, not seconds.
 */
export const EXPIRY_BATCH = 2_000;

export interface AccountExpiryOptions {
  policy: RetentionPolicy;
  /** The accounts with a retention of their own (readOwnRetentions). */
  own: ReadonlyMap<string, number>;
  /** The longest retention in force: partitions past it are dropped whole, not read here. */
  longestDays: number;
  /** Events one call deletes at most; those left wait for the next call. */
  maxEvents: number;
  now?: number;
}

export interface AccountExpiryReport {
  /** Events deleted, and their attempts. */
  events: number;
  attempts: number;
  /** DELETE statements run, each of at most EXPIRY_BATCH events. */
  statements: number;
  /** Stopped at maxEvents: more events may be due. */
  more: boolean;
}

/**
 * Deletes the finished events of the accounts whose retention is shorter than the longest
 * in force, once older than their own retention (by `received_at`), with their attempts:
 * the partitions holding them stay, for the accounts that keep theirs longer. Unfinished
 * events are never deleted; they go once finished, in a later call. Partitions are read
 * oldest first, and in each, an account's events through its (account_id, received_at)
 * index, EXPIRY_BATCH a statement, up to `maxEvents` a call.
 *
 * Which accounts a partition holds is read from that index when the accounts without a
 * retention of their own are due (some account keeps longer than the default): then
 * nearly all are. Otherwise only the few with a shorter retention of their own are asked.
 */
export async function expireAccountEvents(
  on: Queryable,
  options: AccountExpiryOptions,
): Promise<AccountExpiryReport> {
  const now = options.now ?? Date.now();
  const report: AccountExpiryReport = { events: 0, attempts: 0, statements: 0, more: false };
  const daysOf = (accountId: string) =>
    effectiveRetentionDays(options.policy, options.own.get(accountId) ?? null);
  const shorter = (days: number) =>
    days > 0 && (options.longestDays === 0 || days < options.longestDays);
  const defaultsDue = shorter(options.policy.defaultDays);
  const ownShorter = [...options.own.keys()].filter((accountId) => shorter(daysOf(accountId)));
  if (!defaultsDue && ownShorter.length === 0) return report;

  const shortest = Math.min(
    ...(defaultsDue ? [options.policy.defaultDays] : []),
    ...ownShorter.map(daysOf),
  );
  const partitions = (await listPartitions(on)).filter(
    (partition) =>
      partition.table === 'webhook_logs' &&
      !partition.restored &&
      !partition.detachPending &&
      (partition.fromMs === null || partition.fromMs < now - shortest * DAY_MS) &&
      (options.longestDays === 0 || partition.toMs > now - options.longestDays * DAY_MS),
  );
  for (const partition of partitions) {
    const accounts = defaultsDue ? await accountsIn(on, partition) : ownShorter;
    for (const accountId of accounts) {
      const days = daysOf(accountId);
      const cutoff = now - days * DAY_MS;
      if (!shorter(days) || (partition.fromMs !== null && partition.fromMs >= cutoff)) continue;
      let after: Cursor | undefined;
      for (;;) {
        if (report.events >= options.maxEvents) {
          report.more = true;
          return report;
        }
        const limit = Math.min(EXPIRY_BATCH, options.maxEvents - report.events);
        const batch = await expireBatch(on, partition, accountId, cutoff, limit, after);
        report.events += batch.events;
        report.attempts += batch.attempts;
        report.statements += 1;
        if (batch.chosen < limit) break;
        after = batch.last;
      }
    }
  }
  return report;
}

/**
 * The accounts with events in `partition`: one descent of its account index per account
 * (a loose index scan), however many events each has.
 */
async function accountsIn(on: Queryable, partition: Partition): Promise<string[]> {
  const logs = quoted(partition.name);
  const { rows } = await on.query<{ accountId: string }>(
    `WITH RECURSIVE present AS (
       (SELECT account_id FROM ${logs} ORDER BY account_id LIMIT 1)
       UNION ALL
       SELECT (SELECT l.account_id FROM ${logs} l WHERE l.account_id > present.account_id
               ORDER BY l.account_id LIMIT 1)
       FROM present WHERE present.account_id IS NOT NULL)
     SELECT account_id AS "accountId" FROM present WHERE account_id IS NOT NULL`,
  );
  return rows.map((row) => row.accountId);
}

/** Where a batch ended in its account's events: the next one starts after it. */
interface Cursor {
  receivedAt: string;
  id: string;
}

/**
 * One statement: up to `limit` of the account's finished events received before `cutoff`
 * in `partition`, oldest first from `after`, and their attempts (the same period of
 * event_attempts, by id range). In order along the (account_id, received_at, id) index
 * and from where the last batch ended, so that no batch walks again over the rows the
 * ones before it deleted: without vacuum yet, a scan would read them all again each time.
 * The DELETE checks "finished" again on the row it deletes, so an event a replay sent back
 * to the queue meanwhile stays.
 */
async function expireBatch(
  on: Queryable,
  partition: Partition,
  accountId: string,
  cutoff: number,
  limit: number,
  after: Cursor | undefined,
): Promise<{ chosen: number; events: number; attempts: number; last: Cursor | undefined }> {
  const logs = quoted(partition.name);
  const from =
    partition.fromMs === null ? '' : `AND event_id >= '${idBoundaryAt(partition.fromMs)}'`;
  const { rows } = await on.query<{
    chosen: number;
    events: number;
    attempts: number;
    lastAt: string | null;
    lastId: string | null;
  }>(
    `WITH chosen AS (
       SELECT ctid, received_at, id FROM ${logs}
       WHERE account_id = $1 AND received_at < $2
         ${after === undefined ? '' : 'AND (received_at, id) > ($4::timestamptz, $5::uuid)'}
         AND NOT (${unfinished()})
       ORDER BY received_at, id
       LIMIT $3
     ), events AS (
       DELETE FROM ${logs}
       WHERE ctid = ANY(ARRAY(SELECT ctid FROM chosen)) AND NOT (${unfinished()})
       RETURNING id
     ), attempts AS (
       DELETE FROM event_attempts
       WHERE event_id = ANY(ARRAY(SELECT id FROM events))
         ${from} AND event_id < '${idBoundaryAt(partition.toMs)}'
       RETURNING 1
     ), last AS (
       SELECT received_at::text AS at, id::text FROM chosen ORDER BY received_at DESC, id DESC
       LIMIT 1
     )
     SELECT (SELECT count(*) FROM chosen)::int AS chosen,
            (SELECT count(*) FROM events)::int AS events,
            (SELECT count(*) FROM attempts)::int AS attempts,
            (SELECT at FROM last) AS "lastAt", (SELECT id FROM last) AS "lastId"`,
    [
      accountId,
      new Date(cutoff),
      limit,
      ...(after === undefined ? [] : [after.receivedAt, after.id]),
    ],
  );
  const row = rows[0];
  return {
    chosen: row?.chosen ?? 0,
    events: row?.events ?? 0,
    attempts: row?.attempts ?? 0,
    last:
      row?.lastAt == null || row.lastId == null
        ? undefined
        : { receivedAt: row.lastAt, id: row.lastId },
  };
}
