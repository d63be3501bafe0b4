// What the bench reads back about outgoing webhooks: how many messages and deliveries the
// content changes recorded and how many are finished, and how long they took to be
// delivered.
import type pg from 'pg';

export interface DeliveryCounts {
  recorded: number;
  /** Succeeded or failed: no attempt is due any more. */
  finished: number;
  failed: number;
}

export async function deliveryCounts(db: pg.Pool): Promise<DeliveryCounts> {
  const { rows } = await db.query<DeliveryCounts>(
    `SELECT count(*)::int AS recorded,
       count(*) FILTER (WHERE status <> 'pending')::int AS finished,
       count(*) FILTER (WHERE status = 'failed')::int AS failed
     FROM webhook_deliveries`,
  );
  return rows[0] ?? { recorded: 0, finished: 0, failed: 0 };
}

export interface MessageShare {
  /** Messages written for applied changes (pings aside): one per change an endpoint heard. */
  messages: number;
  /** Events applied (succeeded). */
  applied: number;
}

/** With one endpoint per account, the share of the applied changes its filter passed. */
export async function messageShare(db: pg.Pool): Promise<MessageShare> {
  const { rows } = await db.query<MessageShare>(
    `SELECT (SELECT count(*)::int FROM webhook_messages WHERE event_id IS NOT NULL) AS messages,
       (SELECT count(*)::int FROM webhook_logs WHERE status = 'succeeded') AS applied`,
  );
  return rows[0] ?? { messages: 0, applied: 0 };
}

export interface DeliveryLag {
  deliveries: number;
  /** From the delivery's `created_at` (the transaction that applied its change) to its `finished_at`. */
  p50Ms: number;
  p99Ms: number;
  /** The successful attempt alone, as the worker timed it: connect, send, read the answer. */
  attemptP50Ms: number;
  attemptP99Ms: number;
}

/**
 * Delivery lag of the deliveries recorded from `from` on. `created_at` is `now()` of the
 * transaction that applied the change (the same instant as its event's `finished_at`);
 * `finished_at` is stamped by the worker once the receiver has answered.
 */
export async function deliveryLag(db: pg.Pool, from: Date): Promise<DeliveryLag> {
  const { rows } = await db.query<{
    deliveries: number;
    p50: number | null;
    p99: number | null;
    attempt_p50: number | null;
    attempt_p99: number | null;
  }>(
    `SELECT count(*)::int AS deliveries,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY lag) AS p50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY lag) AS p99,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS attempt_p50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) AS attempt_p99
     FROM (SELECT extract(epoch FROM finished_at - created_at) * 1000 AS lag, latency_ms
           FROM webhook_deliveries WHERE status = 'succeeded' AND created_at >= $1) AS lags`,
    [from],
  );
  const row = rows[0];
  const value = (n: number | null | undefined) => n ?? Number.NaN;
  return {
    deliveries: row?.deliveries ?? 0,
    p50Ms: value(row?.p50),
    p99Ms: value(row?.p99),
    attemptP50Ms: value(row?.attempt_p50),
    attemptP99Ms: value(row?.attempt_p99),
  };
}
