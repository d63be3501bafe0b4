-- CreateIndex
CREATE INDEX "webhook_messages_created_at_idx" ON "webhook_messages"("created_at");
