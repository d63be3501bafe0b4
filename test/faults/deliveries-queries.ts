// What the service recorded about outgoing webhooks, read straight from PostgreSQL, as the
// ledger is: the account's events, their outcome and the slug each tells of, the messages
// written with the changes (and the breaker's notices), and the deliveries of each message
// to each endpoint.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

export interface EventOutcome {
  id: string;
  /** The incoming event: `article.create`, ... */
  event: string | null;
  status: string;
  /** The slug it was sent about: an article's, or the article a highlight links to. */
  slug: string | null;
}

export interface MessageRow {
  id: string;
  /** Null for a notice (`endpoint.paused`), which tells of no event. */
  eventId: string | null;
  type: string;
  /** The JSON text every delivery of the message POSTs, as signed. */
  body: string;
}

export interface DeliveryRow {
  id: string;
  messageId: string;
  endpointId: string;
  status: string;
  attempts: number;
  error: string | null;
}

export interface DeliveriesSnapshot {
  /** In acceptance order (`sequence`): the order a slug's changes are applied and told in. */
  events: EventOutcome[];
  messages: MessageRow[];
  deliveries: DeliveryRow[];
}

/**
 * Waits until none of the account's deliveries is pending or held (its endpoint paused,
 * waiting for its owner); returns how many still are.
 */
export async function waitForDeliveries(
  db: pg.Pool,
  accountId: string,
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let pending = -1;
    try {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries d
         JOIN webhook_messages m ON m.id = d.message_id
         WHERE m.account_id = $1 AND d.status IN ('pending', 'held')`,
        [accountId],
      );
      pending = rows[0]?.n ?? 0;
    } catch {
      // Look again: the database may be busy coming back from a fault.
    }
    if (pending === 0 || Date.now() > deadline) return pending;
    await sleep(250);
  }
}

/** The attempts an endpoint's deliveries have recorded so far. */
export async function attemptsAt(db: pg.Pool, endpointId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT coalesce(sum(attempts), 0)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`,
    [endpointId],
  );
  return rows[0]?.n ?? 0;
}

export async function readDeliveries(db: pg.Pool, accountId: string): Promise<DeliveriesSnapshot> {
  const [events, messages, deliveries] = await Promise.all([
    db.query<EventOutcome>(
      `SELECT id, event, status, coalesce(payload->>'slug', payload->>'articleSlug') AS slug
       FROM webhook_logs WHERE account_id = $1 ORDER BY sequence`,
      [accountId],
    ),
    db.query<MessageRow>(
      `SELECT id, event_id AS "eventId", type, body FROM webhook_messages
       WHERE account_id = $1 ORDER BY id`,
      [accountId],
    ),
    db.query<DeliveryRow>(
      `SELECT d.id, d.message_id AS "messageId", d.endpoint_id AS "endpointId", d.status,
              d.attempts, d.error
       FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
       WHERE m.account_id = $1 ORDER BY d.id`,
      [accountId],
    ),
  ]);
  return { events: events.rows, messages: messages.rows, deliveries: deliveries.rows };
}
