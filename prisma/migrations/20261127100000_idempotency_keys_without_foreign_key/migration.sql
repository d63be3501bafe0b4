-- Written by hand: Prisma's schema cannot say that a relation has no foreign key in the
-- database. Every claimed Idempotency-Key fired this key's check: one query on accounts
-- per key, planned anew each time (sessions run with plan_cache_mode=force_custom_plan),
-- which took about a sixth of PostgreSQL's CPU while batches of keyed events were
-- recorded (perf over `pnpm bench --only=batches`-like load). The event log's rows lost
-- their keys for the same kind of reason (20261123071936_event_log_without_foreign_keys).
-- Nothing deletes accounts in the service; keys are claimed only in packages/event-log,
-- for an authenticated key's account, and purgeAccountEvents now deletes an account's
-- keys with the rest of its log, as the cascade did.
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_account_id_fkey";
