-- CreateIndex
CREATE INDEX "webhook_messages_event_id_idx" ON "webhook_messages"("event_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_created_at_id_idx" ON "webhook_deliveries"("created_at" DESC, "id" DESC);
