-- Written by hand: Prisma's schema language cannot declare partitioned tables (see
-- packages/db/README.md, "The partitioned event log"). webhook_logs and event_attempts
-- become partitioned by a range of the event id. Ids are UUIDv7, whose first 48 bits are
-- the creation time in milliseconds, so a range of ids is a range of time; the id stays
-- the whole primary key, and a receipt lookup by id reads one partition.
--
-- The existing tables are not copied: each becomes the first partition of its new parent,
-- `webhook_logs_legacy` and `event_attempts_legacy`, covering every id up to the end of
-- the day (UTC) this runs. Attaching scans each table once to check its rows fit; nothing
-- is rewritten. Later partitions (daily by default) are created ahead by the event-log
-- maintenance (packages/event-log/src/partitions), which every API and worker runs at
-- start. Stop the API and the workers while this runs, as for every migration.
-- Index and constraint names stay the ones Prisma generated, so later generated
-- migrations apply to the partitioned tables unchanged.

-- 1. Foreign keys into webhook_logs are recreated against the new parent.
ALTER TABLE "event_attempts" DROP CONSTRAINT "event_attempts_event_id_fkey";
ALTER TABLE "pending_order_keys" DROP CONSTRAINT "pending_order_keys_event_id_fkey";

-- 2. Move the old tables aside, names and all.
ALTER TABLE "webhook_logs" RENAME TO "webhook_logs_legacy";
ALTER TABLE "webhook_logs_legacy" RENAME CONSTRAINT "webhook_logs_pkey" TO "webhook_logs_legacy_pkey";
ALTER TABLE "webhook_logs_legacy" RENAME CONSTRAINT "webhook_logs_account_id_fkey" TO "webhook_logs_legacy_account_id_fkey";
ALTER TABLE "webhook_logs_legacy" RENAME CONSTRAINT "webhook_logs_api_key_id_fkey" TO "webhook_logs_legacy_api_key_id_fkey";
ALTER INDEX "webhook_logs_account_id_received_at_id_idx" RENAME TO "webhook_logs_legacy_account_id_received_at_id_idx";
ALTER INDEX "webhook_logs_received_at_id_idx" RENAME TO "webhook_logs_legacy_received_at_id_idx";
ALTER INDEX "webhook_logs_api_key_id_received_at_idx" RENAME TO "webhook_logs_legacy_api_key_id_received_at_idx";
ALTER INDEX "webhook_logs_status_received_at_idx" RENAME TO "webhook_logs_legacy_status_received_at_idx";
ALTER INDEX "webhook_logs_order_keys_idx" RENAME TO "webhook_logs_legacy_order_keys_idx";
ALTER INDEX "webhook_logs_payload_idx" RENAME TO "webhook_logs_legacy_payload_idx";
ALTER INDEX "webhook_logs_finished_at_idx" RENAME TO "webhook_logs_legacy_finished_at_idx";
ALTER INDEX "webhook_logs_unfinished_idx" RENAME TO "webhook_logs_legacy_unfinished_idx";
ALTER TABLE "event_attempts" RENAME TO "event_attempts_legacy";
ALTER TABLE "event_attempts_legacy" RENAME CONSTRAINT "event_attempts_pkey" TO "event_attempts_legacy_pkey";

-- 3. The partitioned parents, with the columns, defaults, keys and indexes Prisma made.
CREATE TABLE "webhook_logs" (
    "id" UUID NOT NULL,
    "sequence" BIGINT NOT NULL DEFAULT nextval('webhook_logs_sequence_seq'),
    "account_id" UUID NOT NULL,
    "api_key_id" UUID,
    "event" TEXT,
    "payload" JSONB NOT NULL,
    "request_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "order_keys" TEXT[],
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "notify_on_finish" BOOLEAN NOT NULL DEFAULT false,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "result" JSONB,
    "error" JSONB,
    "last_replayed_at" TIMESTAMPTZ(3),
    "replays" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "webhook_logs_pkey" PRIMARY KEY ("id")
) PARTITION BY RANGE ("id");
-- The sequence would be dropped with the legacy partition while it owned it.
ALTER SEQUENCE "webhook_logs_sequence_seq" OWNED BY "webhook_logs"."sequence";
ALTER TABLE "webhook_logs_legacy" ALTER COLUMN "sequence" DROP DEFAULT;

ALTER TABLE "webhook_logs" ADD CONSTRAINT "webhook_logs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_logs" ADD CONSTRAINT "webhook_logs_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "webhook_logs_account_id_received_at_id_idx" ON "webhook_logs"("account_id", "received_at" DESC, "id" DESC);
CREATE INDEX "webhook_logs_received_at_id_idx" ON "webhook_logs"("received_at" DESC, "id" DESC);
CREATE INDEX "webhook_logs_api_key_id_received_at_idx" ON "webhook_logs"("api_key_id", "received_at" DESC);
CREATE INDEX "webhook_logs_status_received_at_idx" ON "webhook_logs"("status", "received_at" DESC);
CREATE INDEX "webhook_logs_order_keys_idx" ON "webhook_logs" USING GIN ("order_keys") WITH (fastupdate = off);
CREATE INDEX "webhook_logs_payload_idx" ON "webhook_logs" USING GIN ("payload" jsonb_path_ops);
CREATE INDEX "webhook_logs_finished_at_idx" ON "webhook_logs"("finished_at");
CREATE INDEX "webhook_logs_unfinished_idx" ON "webhook_logs"("status", "received_at") WHERE (status IN ('queued', 'processing'));

CREATE TABLE "event_attempts" (
    "event_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "outcome" TEXT,
    "error" JSONB,
    CONSTRAINT "event_attempts_pkey" PRIMARY KEY ("event_id", "number")
) PARTITION BY RANGE ("event_id");

-- 4. The old tables become the first partitions: every id before the end of today (UTC),
--    or of the day of the newest id if that is later (an id made by a clock running ahead).
--    An id's first 48 bits are its millisecond timestamp, so a day's end is a uuid too.
--    A database without events (a new one) gets today's partition instead, named as the
--    maintenance names daily ones: webhook_logs_pYYYYMMDD.
DO $$
DECLARE
  day_ms constant bigint := 86400000;
  today_ms bigint := (extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC')) * 1000)::bigint;
  newest_ms bigint := (SELECT ('x' || substr(replace(id::text, '-', ''), 1, 12))::bit(48)::bigint
                       FROM webhook_logs_legacy ORDER BY id DESC LIMIT 1);
  boundary_ms bigint := greatest(today_ms + day_ms, (coalesce(newest_ms, 0) / day_ms + 1) * day_ms);
  today_bound uuid := (lpad(to_hex(today_ms), 12, '0') || '00000000000000000000')::uuid;
  boundary uuid := (lpad(to_hex(boundary_ms), 12, '0') || '00000000000000000000')::uuid;
  today_suffix text := to_char(date_trunc('day', now() AT TIME ZONE 'UTC'), 'YYYYMMDD');
  renamed record;
BEGIN
  IF newest_ms IS NULL THEN
    DROP TABLE webhook_logs_legacy;
    DROP TABLE event_attempts_legacy;
    EXECUTE format('CREATE TABLE %I (LIKE webhook_logs)', 'webhook_logs_p' || today_suffix);
    EXECUTE format('ALTER TABLE webhook_logs ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   'webhook_logs_p' || today_suffix, today_bound, boundary);
    EXECUTE format('CREATE TABLE %I (LIKE event_attempts)', 'event_attempts_p' || today_suffix);
    EXECUTE format('ALTER TABLE event_attempts ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   'event_attempts_p' || today_suffix, today_bound, boundary);
    -- Its indexes named after their parents' (webhook_logs_p…_unfinished_idx), as the
    -- maintenance names those of every later partition; through temporary names, as two
    -- named after their columns alone may trade names.
    FOR renamed IN
      SELECT c.relname AS child, c.oid, part.relname || substr(p.relname, length(parent.relname) + 1) AS wanted
      FROM pg_index x
      JOIN pg_class c ON c.oid = x.indexrelid
      JOIN pg_inherits i ON i.inhrelid = c.oid
      JOIN pg_class p ON p.oid = i.inhparent
      JOIN pg_class part ON part.oid = x.indrelid
      JOIN pg_inherits pi ON pi.inhrelid = part.oid
      JOIN pg_class parent ON parent.oid = pi.inhparent
      WHERE part.relname IN ('webhook_logs_p' || today_suffix, 'event_attempts_p' || today_suffix)
    LOOP
      EXECUTE format('ALTER INDEX %I RENAME TO %I', renamed.child, 'index_' || renamed.oid);
      EXECUTE format('ALTER INDEX %I RENAME TO %I', 'index_' || renamed.oid, renamed.wanted);
    END LOOP;
  ELSE
    EXECUTE format('ALTER TABLE webhook_logs ATTACH PARTITION webhook_logs_legacy FOR VALUES FROM (MINVALUE) TO (%L)', boundary);
    EXECUTE format('ALTER TABLE event_attempts ATTACH PARTITION event_attempts_legacy FOR VALUES FROM (MINVALUE) TO (%L)', boundary);
  END IF;
END $$;

-- 5. The foreign keys into the event log, now against the partitioned parent.
ALTER TABLE "event_attempts" ADD CONSTRAINT "event_attempts_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_logs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "pending_order_keys" ADD CONSTRAINT "pending_order_keys_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_logs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
