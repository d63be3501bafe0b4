-- The tables written and deleted at event rate (packages/event-log, hot-tables.ts) empty
-- out and fill again all day. A vacuum that finds their last pages empty gives them back
-- to the file system, and for that takes an ACCESS EXCLUSIVE lock, which every accept
-- (its places in line, its Idempotency-Key) and every claim then waits behind; the pages
-- are needed again a moment later. Kept, they are reused. This holds for autovacuum too.
-- Not expressible in schema.prisma, so by hand.
ALTER TABLE "pending_order_keys" SET (vacuum_truncate = false);
ALTER TABLE "idempotency_keys" SET (vacuum_truncate = false);
