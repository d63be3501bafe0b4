-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "max_in_flight" INTEGER,
ADD COLUMN     "queue_weight" INTEGER NOT NULL DEFAULT 1;

-- CreateIndex
CREATE INDEX "accounts_custom_share_idx" ON "accounts"("id") WHERE (queue_weight <> 1 OR max_in_flight IS NOT NULL);
