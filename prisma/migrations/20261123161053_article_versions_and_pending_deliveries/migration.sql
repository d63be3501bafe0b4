-- AlterTable
ALTER TABLE "articles" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- CreateIndex
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries"("next_attempt_at") WHERE (status = 'pending');
