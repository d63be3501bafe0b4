import type { Queryable } from './queryable.js';

/** A line: one account's events about one order key (a slug), applied one after another. */
export interface Line {
  accountId: string;
  key: string;
}

export interface LineHead {
  eventId: string;
  /** Its event name as recorded (the job's name). */
  event: string | null;
  requestId: string;
  accountId: string;
}

/**
 * The first event of each line, where that event is queued: the one that may run now.
 * Asked after a transaction that finished events has committed, so it sees every event
 * recorded before that: a job that parked behind a finished event is found here, or it
 * saw the event finished when it looked again after parking (see stillBlocked).
 */
export async function queuedHeadsOf(on: Queryable, lines: Line[]): Promise<LineHead[]> {
  const unique = new Map(lines.map((line) => [`${line.accountId}\u0000${line.key}`, line]));
  if (unique.size === 0) return [];
  const { rows } = await on.query<LineHead>({
    name: 'queued-heads-of-lines',
    text: `
      SELECT w.id AS "eventId", w.event, w.request_id AS "requestId", w.account_id AS "accountId"
      FROM unnest($1::uuid[], $2::text[]) AS l(account_id, key)
      CROSS JOIN LATERAL (
        SELECT p.event_id FROM pending_order_keys p
        WHERE p.account_id = l.account_id AND p.key = l.key
        ORDER BY p.sequence LIMIT 1
      ) h
      JOIN webhook_logs w ON w.id = h.event_id
      WHERE w.status = 'queued'`,
    values: [
      [...unique.values()].map((line) => line.accountId),
      [...unique.values()].map((line) => line.key),
    ],
  });
  return rows;
}

/** The lines an event stands in. */
export const linesOf = (event: { accountId: string; orderKeys: string[] }): Line[] =>
  event.orderKeys.map((key) => ({ accountId: event.accountId, key }));
