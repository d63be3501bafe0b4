// What the bench reads back from the database: how many events are finished, and how
// long they took from being recorded to being applied.
import { idBoundaryAt } from '@ingest/event-log';
import type pg from 'pg';

export type Side = 'service' | 'floor';

/**
 * `sql` (a WHERE without a bound) limited to events received since `from`, if given; by
 * id too, so that PostgreSQL plans only the partitions from then on, and a count beside
 * 40 days of history costs what it costs beside none.
 */
const receivedSince = (sql: string, from: Date | undefined): [string, unknown[]] =>
  from === undefined
    ? [sql, []]
    : [`${sql} AND received_at >= $1 AND id >= $2::uuid`, [from, idBoundaryAt(from.getTime())]];

/**
 * Events finished; with `from`, only the service's received since (the history mode's
 * log holds millions finished before the run; the floor has no history).
 */
export async function finishedCount(db: pg.Pool, side: Side, from?: Date): Promise<number> {
  const [text, values] =
    side === 'service'
      ? receivedSince(
          `SELECT count(*)::int AS n FROM webhook_logs WHERE status IN ('succeeded', 'failed')`,
          from,
        )
      : [`SELECT count(*)::int AS n FROM floor_log WHERE status = 'succeeded'`, []];
  const { rows } = await db.query<{ n: number }>(text, values);
  return rows[0]?.n ?? 0;
}

/** One account's events in `statuses`: finished ones, or those still to apply. */
export async function accountEventCount(
  db: pg.Pool,
  accountId: string,
  statuses: readonly string[],
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_logs WHERE account_id = $1 AND status = ANY($2)`,
    [accountId, statuses],
  );
  return rows[0]?.n ?? 0;
}

export async function failedCount(db: pg.Pool, from?: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    ...receivedSince(`SELECT count(*)::int AS n FROM webhook_logs WHERE status = 'failed'`, from),
  );
  return rows[0]?.n ?? 0;
}

export interface LagPercentiles {
  events: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Time from the row's `received_at` (stamped in the transaction that records the event,
 * just before the 202) to its `finished_at` (stamped in the transaction that applies it).
 */
/** Lag of the events received from `from` on (the run's warm-up is left out). */
export async function lagPercentiles(db: pg.Pool, side: Side, from: Date): Promise<LagPercentiles> {
  const table = side === 'service' ? 'webhook_logs' : 'floor_log';
  const { rows } = await db.query<{ events: number; p50: number | null; p99: number | null }>(
    `SELECT count(*)::int AS events,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY lag) AS p50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY lag) AS p99
     FROM (SELECT extract(epoch FROM finished_at - received_at) * 1000 AS lag
           FROM ${table} WHERE status = 'succeeded' AND received_at >= $1) AS lags`,
    [from],
  );
  const row = rows[0];
  return { events: row?.events ?? 0, p50Ms: row?.p50 ?? Number.NaN, p99Ms: row?.p99 ?? Number.NaN };
}
