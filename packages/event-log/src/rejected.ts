import type { Queryable } from './queryable.js';

/** A call refused after its key and scope were checked, recorded as `rejected`. */
export interface RejectedEvent {
  id: string;
  accountId: string;
  apiKeyId: string;
  requestId: string;
  /** The event name as sent, when it was a storable string. */
  event: string | null;
  /** What was sent, already made storable (no NUL, no lone surrogate). */
  payload: unknown;
  /** Why it was refused: `{ code, message, errors? }`, storable like the payload. */
  error: unknown;
}

/**
 * Records refused calls (or a batch's refused items), finished at once, in one statement:
 * an operator can see what a bot sent, and why not. Recording the same rows again does
 * nothing: a call whose key was held is recorded again, whole, after its group's write,
 * which may already have recorded its refusals.
 */
export async function insertRejected(on: Queryable, rejected: RejectedEvent[]): Promise<void> {
  if (rejected.length === 0) return;
  await on.query({
    name: 'insert-rejected-events',
    text: `
      INSERT INTO webhook_logs
        (id, account_id, api_key_id, event, payload, request_id, status, order_keys,
         finished_at, error)
      SELECT r.id, r.account_id, r.api_key_id, r.event, r.payload, r.request_id, 'rejected',
             '{}', now(), r.error
      FROM ROWS FROM (unnest($1::uuid[]), unnest($2::uuid[]), unnest($3::uuid[]),
                      unnest($4::text[]), jsonb_array_elements($5::jsonb), unnest($6::text[]),
                      jsonb_array_elements($7::jsonb))
           AS r(id, account_id, api_key_id, event, payload, request_id, error)
      ON CONFLICT (id) DO NOTHING`,
    values: [
      rejected.map((row) => row.id),
      rejected.map((row) => row.accountId),
      rejected.map((row) => row.apiKeyId),
      rejected.map((row) => row.event),
      // JSON arrays, as insertAccepted sends payloads, rather than jsonb[] literals that
      // escape every quote. A body of JSON null (or none) is stored as JSON null, not SQL NULL.
      JSON.stringify(rejected.map((row) => row.payload ?? null)),
      rejected.map((row) => row.requestId),
      JSON.stringify(rejected.map((row) => row.error)),
    ],
  });
}
