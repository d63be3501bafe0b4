// The queue state's figures read from the event log: the finished events it keeps, by
// status, and how long events took to be applied lately. The dashboard polls them every
// 2 s, so each reads a bounded number of index entries, or the catalog alone.
import {
  EVENT_COUNT_LIMIT,
  LAG_SAMPLE_EVENTS,
  type BoundedCount,
  type QueueState,
} from '@ingest/contracts';
import { idBoundaryAt } from '@ingest/event-log';
import type pg from 'pg';
import { CLOCK_MARGIN_MS } from './newest-first.js';

type Kept = QueueState['kept'];

/** The lag is measured over events accepted this long ago at most. */
const LAG_WINDOW_MS = 3_600_000;

/**
 * The events of one status the log keeps, counted up to EVENT_COUNT_LIMIT through the
 * (status, received_at) index.
 */
export async function countKept(pool: pg.Pool, status: keyof Kept): Promise<BoundedCount> {
  const { rows } = await pool.query<{ events: number }>({
    name: 'count-kept-events',
    text: `SELECT count(*)::int AS events
           FROM (SELECT 1 FROM webhook_logs WHERE status = $1 LIMIT $2) AS kept`,
    values: [status, EVENT_COUNT_LIMIT + 1],
  });
  const events = rows[0]?.events ?? 0;
  return { count: Math.min(events, EVENT_COUNT_LIMIT), exact: events <= EVENT_COUNT_LIMIT };
}

/**
 * The rows of every partition of the log as the planner estimates them, from the catalog
 * alone: reltuples, or, for a partition never analysed yet (reltuples -1), the statistics
 * collector's live rows. Null when neither knows.
 */
export async function estimateLogRows(pool: pg.Pool): Promise<number | null> {
  const { rows } = await pool.query<{ rows: number | null }>({
    name: 'estimate-event-log-rows',
    text: `SELECT sum(CASE WHEN c.reltuples >= 0 THEN c.reltuples ELSE s.n_live_tup END)::float8 AS rows
           FROM pg_partition_tree('webhook_logs') AS t
           JOIN pg_class c ON c.oid = t.relid
           LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
           WHERE t.isleaf`,
  });
  return rows[0]?.rows ?? null;
}

/**
 * The succeeded events: counted when there are at most EVENT_COUNT_LIMIT; past it, the
 * log's estimated rows less the other statuses counted (`others`). Those counts are exact
 * or, capped, too low, so the estimate errs high, never low. An estimate at or under the
 * bound contradicts the count (statistics not gathered yet) and is not given.
 */
export function succeededFigure(
  counted: BoundedCount,
  logRows: number | null,
  others: number,
): Kept['succeeded'] {
  if (counted.exact || logRows === null) return { ...counted, estimate: null };
  const estimate = Math.round(logRows - others);
  return { ...counted, estimate: estimate > EVENT_COUNT_LIMIT ? estimate : null };
}

/**
 * Accepted to applied, median and highest, of the newest LAG_SAMPLE_EVENTS events of the
 * last hour that succeeded, read newest first through the (status, received_at) index of
 * the partitions of that hour only. Replays are left out: their time in the log includes
 * the time they lay failed, which is not the queue's.
 */
export async function appliedLag(pool: pg.Pool, now = Date.now()): Promise<QueueState['lag']> {
  const since = now - LAG_WINDOW_MS;
  const { rows } = await pool.query<{ events: number; p50: number | null; max: number | null }>({
    name: 'applied-lag',
    text: `SELECT count(*)::int AS events,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY lag) AS p50, max(lag) AS max
           FROM (SELECT extract(epoch FROM finished_at - received_at)::float8 AS lag
                 FROM webhook_logs
                 WHERE status = 'succeeded' AND received_at >= $1
                   AND id >= $2::uuid AND id < $3::uuid AND replays = 0
                 ORDER BY received_at DESC LIMIT $4) AS newest`,
    values: [
      new Date(since),
      idBoundaryAt(since - CLOCK_MARGIN_MS),
      // The partitions made ahead hold nothing yet: bounded above too, they are not read.
      idBoundaryAt(now + CLOCK_MARGIN_MS),
      LAG_SAMPLE_EVENTS,
    ],
  });
  const row = rows[0];
  const seconds = (value: number | null | undefined) =>
    value == null ? null : Math.max(0, Math.round(value * 1000) / 1000);
  return { events: row?.events ?? 0, p50Seconds: seconds(row?.p50), maxSeconds: seconds(row?.max) };
}
