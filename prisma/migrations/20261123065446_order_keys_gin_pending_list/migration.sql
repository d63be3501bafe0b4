-- Written by hand: an index storage parameter, which Prisma's schema cannot declare.
-- 20261122090000_order_keys_gin_without_pending_list turned GIN's pending list off on this
-- index because the worker's claim then looked up order keys in it once per job. Since
-- 20261123020443_account_scoped_order_lines the worker reads pending_order_keys instead:
-- only operator search by slug and bulk retry by slug read this index. Without the pending
-- list every insert updated the GIN tree at once, the dearest index write on the accept
-- path (about 10 us of 78 us per row at a million events, against 2.4 us with the list);
-- operators' searches now also read the short pending list, a few MB at most.
-- A partitioned index takes no ALTER ... SET, so it is made again with the default.
DROP INDEX "webhook_logs_order_keys_idx";
CREATE INDEX "webhook_logs_order_keys_idx" ON "webhook_logs" USING GIN ("order_keys");
