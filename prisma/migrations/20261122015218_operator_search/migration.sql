-- AlterTable
ALTER TABLE "webhook_logs" ADD COLUMN     "last_replayed_at" TIMESTAMPTZ(3),
ADD COLUMN     "replays" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "webhook_logs_received_at_id_idx" ON "webhook_logs"("received_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_logs_api_key_id_received_at_idx" ON "webhook_logs"("api_key_id", "received_at" DESC);

-- CreateIndex
CREATE INDEX "webhook_logs_status_received_at_idx" ON "webhook_logs"("status", "received_at" DESC);

-- CreateIndex
CREATE INDEX "webhook_logs_order_keys_idx" ON "webhook_logs" USING GIN ("order_keys");

-- CreateIndex
CREATE INDEX "webhook_logs_payload_idx" ON "webhook_logs" USING GIN ("payload" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "webhook_logs_finished_at_idx" ON "webhook_logs"("finished_at");
