-- Written by hand: Prisma's schema cannot say that a relation has no foreign key in the
-- database. Measured with 10 million events (bench/results/history-10000000.md), these
-- three keys made dropping a day's partitions stall the accept path:
--  * event_attempts -> webhook_logs: detaching a webhook_logs partition checks that no
--    attempt references it by scanning event_attempts, under a SHARE lock that stopped
--    workers recording attempts for up to 7.9 s per day dropped;
--  * webhook_logs -> accounts, webhook_logs -> api_keys: a detached partition's keys get
--    triggers of their own on accounts and api_keys, and dropping the table removes them
--    under an ACCESS EXCLUSIVE lock on both, which publishers' inserts and key lookups
--    queued behind (983 ms; 3,686 requests shed).
-- Nothing deletes accounts, API keys or events row by row (keys are revoked, events age
-- out a partition at a time, attempts with their events' partition), so the cascades never
-- ran; the event log's writes all go through packages/event-log, which writes an attempt
-- only for an event it holds and an event only for an authenticated key. The key from
-- pending_order_keys stays: that table holds only unfinished events, it is small to check,
-- and it is what makes a retention detach fail when an operator replays an event in it.
ALTER TABLE "event_attempts" DROP CONSTRAINT "event_attempts_event_id_fkey";
ALTER TABLE "webhook_logs" DROP CONSTRAINT "webhook_logs_account_id_fkey";
ALTER TABLE "webhook_logs" DROP CONSTRAINT "webhook_logs_api_key_id_fkey";
