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

/** Records a refused call, finished at once: an operator can see what a bot sent, and why not. */
export async function insertRejected(on: Queryable, rejected: RejectedEvent): Promise<void> {
  await on.query({
    name: 'insert-rejected-event',
    text: `
      INSERT INTO webhook_logs
        (id, account_id, api_key_id, event, payload, request_id, status, order_keys,
         finished_at, error)
      VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5::jsonb, $6, 'rejected', '{}', now(), $7::jsonb)`,
    values: [
      rejected.id,
      rejected.accountId,
      rejected.apiKeyId,
      rejected.event,
      // A body of JSON null (or none) is stored as JSON null, not SQL NULL.
      JSON.stringify(rejected.payload ?? null),
      rejected.requestId,
      JSON.stringify(rejected.error),
    ],
  });
}
