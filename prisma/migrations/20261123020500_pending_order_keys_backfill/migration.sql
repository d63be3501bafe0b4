-- Written by hand: Prisma generates schema changes, not data moves. The migration before
-- this one created pending_order_keys, the per-account lines that ordering now reads;
-- events recorded before it (still queued or processing) take their places here, in
-- acceptance order, so that they keep waiting for, and holding back, the events they did.
-- Stop the API and the workers before migrating: an old API would record events without
-- places, and an old worker would order by the index this release dropped.
INSERT INTO pending_order_keys (account_id, key, sequence, event_id)
SELECT DISTINCT w.account_id, k.key, w.sequence, w.id
FROM webhook_logs w
CROSS JOIN LATERAL unnest(w.order_keys) AS k(key)
WHERE w.status IN ('queued', 'processing')
ON CONFLICT DO NOTHING;
