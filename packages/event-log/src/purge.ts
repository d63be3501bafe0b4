import type { Queryable } from './queryable.js';

/**
 * Deletes everything the log holds of these accounts: their events, attempts, places in
 * line and Idempotency-Keys. The log has no foreign keys (packages/db/README.md), so
 * deleting an account does not cascade to them: whoever deletes accounts (test clean-up,
 * an operator by hand) calls this first. Row by row: meant for a few accounts, not for
 * retention.
 */
export async function purgeAccountEvents(on: Queryable, accountIds: string[]): Promise<void> {
  await on.query(
    `WITH places AS (DELETE FROM pending_order_keys WHERE account_id = ANY($1::uuid[])),
          keys AS (DELETE FROM idempotency_keys WHERE account_id = ANY($1::uuid[])),
          attempts AS (DELETE FROM event_attempts WHERE event_id IN
                         (SELECT id FROM webhook_logs WHERE account_id = ANY($1::uuid[])))
     DELETE FROM webhook_logs WHERE account_id = ANY($1::uuid[])`,
    [accountIds],
  );
}
