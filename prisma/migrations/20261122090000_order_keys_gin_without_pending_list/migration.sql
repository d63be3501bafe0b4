-- The worker's claim looks up unfinished events about the same slugs on these GIN
-- indexes once per job. With fastupdate (the default) new entries wait in a pending list
-- that every search reads whole, so a backlog of queued events made each claim slower:
-- PostgreSQL spent about 2.8 ms a job at 20,000 queued (pnpm bench, drain), against 1.2 ms
-- at 4,000. Written straight into the tree, an entry costs little (one or two slugs an
-- event) and a search reads only its slugs. Not expressible in schema.prisma, so by hand.
ALTER INDEX "webhook_logs_pending_order_keys_idx" SET (fastupdate = off);
ALTER INDEX "webhook_logs_order_keys_idx" SET (fastupdate = off);
