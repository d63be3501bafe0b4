/**
 * The places in line (pending_order_keys rows) that finished events leave, as SQL for a
 * statement's CTEs: `LEFT_PLACES(finished)` lists them from a CTE of finished events
 * (account_id, order_keys, sequence), and `DELETE_PLACES(places)` deletes them.
 *
 * Each place is found by one probe of the primary key with all three of its columns,
 * forced by a LATERAL subquery with a LIMIT (which PostgreSQL cannot flatten into a
 * join), and deleted by its ctid. As a plain join the plan depends on estimates, and
 * either plan PostgreSQL picks then walks the account's whole backlog for every batch, so
 * a drain costs time in the square of its backlog (test/worker-finish-plan.test.ts).
 */
export const LEFT_PLACES = (finished: string) =>
  `SELECT f.account_id, k.key, f.sequence FROM ${finished} f, unnest(f.order_keys) AS k(key)`;

export const DELETE_PLACES = (places: string) =>
  `DELETE FROM pending_order_keys WHERE ctid = ANY (ARRAY(
     SELECT found.ctid FROM ${places} l
     CROSS JOIN LATERAL (
       SELECT p.ctid FROM pending_order_keys p
       WHERE p.account_id = l.account_id AND p.key = l.key AND p.sequence = l.sequence
       LIMIT 1) AS found))`;
