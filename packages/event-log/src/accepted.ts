import type { Queryable } from './queryable.js';

/** An event the API accepted, as it is recorded (status `queued`). */
export interface QueuedEvent {
  id: string;
  accountId: string;
  apiKeyId: string;
  /** The event's name, which is its job's name. */
  event: string;
  /** The validated `data`. */
  payload: unknown;
  requestId: string;
  /** What the event is about (a slug, a highlight); it takes a place in each such line. */
  orderKeys: string[];
  /** The caller waits for the outcome (`Prefer: wait`): announce it on finishing. */
  notifyOnFinish: boolean;
}

/**
 * Records accepted events in one statement: their rows, in the order given (their
 * `sequence`, the order events of a line are applied in), and their places in the lines of
 * their order keys. One array per column, so the text is the same for any number of rows
 * and, as a named statement, is parsed once per connection. Raw SQL because Prisma's
 * `createMany` cannot return the rows' receive time.
 *
 * `lines` first takes a transaction lock on each line the events stand in, in one order
 * (no deadlock between two statements). A sequence is drawn at insert but seen by others
 * only at commit: two recordings of one line in flight could otherwise commit in the
 * opposite order to their sequences, and a worker that saw only the later event would
 * apply it first. Every inserted row joins `lines`' single row, which exists only once
 * every lock is held, so no sequence is drawn before that. Other lines never wait.
 */
const INSERT_ACCEPTED = `
  WITH lines AS MATERIALIZED (
    SELECT count(pg_advisory_xact_lock(line)::text) AS locked
    FROM (SELECT DISTINCT hashtextextended(l.account_id::text || '/' || k.key, 0) AS line
          FROM unnest($2::uuid[], $7::jsonb[]) AS l(account_id, order_keys),
               jsonb_array_elements_text(l.order_keys) AS k(key)
          ORDER BY line) AS held
  ),
  recorded AS (
    INSERT INTO webhook_logs
      (id, account_id, api_key_id, event, payload, request_id, status, order_keys, notify_on_finish)
    SELECT r.id, r.account_id, r.api_key_id, r.event, r.payload, r.request_id, 'queued',
           ARRAY(SELECT jsonb_array_elements_text(r.order_keys)), r.notify_on_finish
    FROM ROWS FROM (unnest($1::uuid[]), unnest($2::uuid[]), unnest($3::uuid[]),
                    unnest($4::text[]), jsonb_array_elements($5::jsonb), unnest($6::text[]),
                    unnest($7::jsonb[]), unnest($8::boolean[]))
         WITH ORDINALITY AS r(id, account_id, api_key_id, event, payload, request_id,
                              order_keys, notify_on_finish, position),
         lines
    ORDER BY r.position
    RETURNING id, account_id, order_keys, sequence, received_at
  ),
  placed AS (
    INSERT INTO pending_order_keys (account_id, key, sequence, event_id)
    SELECT account_id, unnest(order_keys), sequence, id FROM recorded
  )
  SELECT count(*)::int AS recorded, min(received_at) AS received_at FROM recorded`;

/**
 * Records accepted events (one statement, one commit when `on` is the pool) and returns
 * when they were received: the same moment for all, as one statement sees one now().
 */
export async function insertAccepted(on: Queryable, events: QueuedEvent[]): Promise<Date> {
  const { rows } = await on.query<{ recorded: number; received_at: Date | null }>({
    name: 'insert-accepted-events',
    text: INSERT_ACCEPTED,
    values: [
      events.map((queued) => queued.id),
      events.map((queued) => queued.accountId),
      events.map((queued) => queued.apiKeyId),
      events.map((queued) => queued.event),
      // One JSON array rather than a jsonb[], whose literal would escape every quote and
      // be parsed twice (array_in, then jsonb_in).
      JSON.stringify(events.map((queued) => queued.payload)),
      events.map((queued) => queued.requestId),
      events.map((queued) => JSON.stringify(queued.orderKeys)),
      events.map((queued) => queued.notifyOnFinish),
    ],
  });
  const [row] = rows;
  if (row?.received_at == null || row.recorded !== events.length) {
    throw new Error(`recorded ${row?.recorded ?? 0} of ${events.length} accepted events`);
  }
  return row.received_at;
}
