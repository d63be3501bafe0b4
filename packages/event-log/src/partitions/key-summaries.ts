import type { Queryable } from '../queryable.js';
import { listPartitions, quoted, type Partition } from './catalog.js';
import { idBoundaryAt } from './partition-range.js';

/**
 * How long after its period ends a partition is summarised. Ids are made by the API when
 * it accepts a call and written within seconds; an hour later (the search's clock margin)
 * no row can still land in it. A restored partition's period is long past.
 */
export const SUMMARY_SETTLE_MS = 60 * 60 * 1000;

/**
 * `webhook_log_key_summaries` rows (`s`) whose table is attached to webhook_logs: the
 * same table (oid and name), so that a list outlives neither its partition nor a drop.
 * Matched by oid rather than by reading each partition's bounds back, which would cost a
 * slug search more than the rest of this query.
 */
const ATTACHED = `EXISTS (
  SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  WHERE i.inhrelid = s.relid::oid AND c.relname = s.partition
    AND i.inhparent = 'webhook_logs'::regclass AND NOT i.inhdetachpending)`;

/**
 * Lists the order keys of every closed webhook_logs partition not yet listed, one
 * partition per statement, and clears away a bounded part of the lists of partitions no
 * longer attached (dropped by retention, or an operator's restored one). Returns the
 * partitions listed.
 *
 * A slug search probes and plans every partition it cannot rule out. A closed partition's
 * keys never change (rows carry the id made at accept, and replays do not touch order
 * keys), so listing them once lets the search rule it out by id range before planning,
 * at the cost of one read of the partition and nothing on the write path.
 */
export async function summarizeClosedPartitions(
  on: Queryable,
  now: number = Date.now(),
): Promise<string[]> {
  await clearDetachedLists(on);
  const { rows } = await on.query<{ partition: string }>(
    `SELECT partition FROM webhook_log_key_summaries s WHERE ${ATTACHED}`,
  );
  const listed = new Set(rows.map((row) => row.partition));
  const due = (await listPartitions(on)).filter(
    (partition) =>
      partition.table === 'webhook_logs' &&
      !partition.detachPending &&
      partition.toMs <= now - SUMMARY_SETTLE_MS &&
      !listed.has(partition.name),
  );
  for (const partition of due) await summarize(on, partition);
  return due.map((partition) => partition.name);
}

/** Keys of lists no longer attached, deleted per round, at most: see clearDetachedLists. */
const CLEARED_KEYS_PER_ROUND = 20_000;
const CLEARED_KEYS_PER_STATEMENT = 5_000;

/**
 * Deletes up to CLEARED_KEYS_PER_ROUND keys of lists whose partition is no longer
 * attached, a few thousand a statement, and the lists left with none. Searches already
 * ignore such lists (ATTACHED), so there is no hurry, and deleting a dropped period's
 * keys in one statement is a burst of writes that slows the publishers' commits.
 */
async function clearDetachedLists(on: Queryable): Promise<void> {
  for (let cleared = 0; cleared < CLEARED_KEYS_PER_ROUND;) {
    const { rowCount } = await on.query(
      `DELETE FROM webhook_log_partition_keys WHERE ctid = ANY(ARRAY(
         SELECT k.ctid FROM webhook_log_key_summaries s
         JOIN webhook_log_partition_keys k ON k.summary_id = s.id
         WHERE NOT ${ATTACHED} LIMIT ${CLEARED_KEYS_PER_STATEMENT}))`,
    );
    cleared += rowCount ?? 0;
    if ((rowCount ?? 0) < CLEARED_KEYS_PER_STATEMENT) break;
  }
  await on.query(
    `DELETE FROM webhook_log_key_summaries s WHERE NOT ${ATTACHED}
       AND NOT EXISTS (SELECT 1 FROM webhook_log_partition_keys k WHERE k.summary_id = s.id)`,
  );
}

/** Lists `partition`'s keys, in one statement: a partition is listed whole or not at all. */
async function summarize(on: Queryable, partition: Partition): Promise<void> {
  // A list left under this name by an earlier table of the name (not attached, since this
  // one was not listed) goes first, with its keys: a rare case, a day dropped and restored.
  await on.query('DELETE FROM webhook_log_key_summaries WHERE partition = $1', [partition.name]);
  await on.query(
    `WITH summary AS (
       INSERT INTO webhook_log_key_summaries (partition, relid, from_id, to_id)
       VALUES ($1, $4::regclass::oid::bigint, $2::uuid, $3::uuid) RETURNING id)
     INSERT INTO webhook_log_partition_keys (key, summary_id)
     SELECT DISTINCT k.key, summary.id
     FROM summary, ${quoted(partition.name)} l, unnest(l.order_keys) AS k(key)`,
    [
      partition.name,
      partition.fromMs === null ? null : idBoundaryAt(partition.fromMs),
      idBoundaryAt(partition.toMs),
      quoted(partition.name),
    ],
  );
}

/** A range of event ids: from `fromId` (null: no lower bound) up to `toId`, exclusive. */
export interface IdRange {
  fromId: string | null;
  toId: string;
}

/**
 * The id ranges no event holding `key` as an order key can be in: attached, summarised
 * partitions whose keys lack it, neighbours joined so that a search's WHERE stays short
 * however long the history. Oldest first.
 */
export async function rangesWithoutKey(on: Queryable, key: string): Promise<IdRange[]> {
  const { rows } = await on.query<IdRange>({
    // Named, so each connection plans it once: planning it costs more than running it.
    name: 'ranges-without-key',
    text: `SELECT s.from_id::text AS "fromId", s.to_id::text AS "toId"
           FROM webhook_log_key_summaries s
           WHERE ${ATTACHED}
             -- One descent of the keys' index for the few lists holding the key, not
             -- one per listed partition (half the time with 8 million keys listed).
             AND s.id NOT IN (SELECT k.summary_id FROM webhook_log_partition_keys k
                              WHERE k.key = $1)
           ORDER BY s.to_id`,
    values: [key],
  });
  const joined: IdRange[] = [];
  for (const range of rows) {
    const last = joined.at(-1);
    if (last !== undefined && last.toId === range.fromId) last.toId = range.toId;
    else joined.push(range);
  }
  return joined;
}
