-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "retention_days" INTEGER;

-- CreateIndex
CREATE INDEX "accounts_own_retention_idx" ON "accounts"("id", "retention_days") WHERE (retention_days IS NOT NULL);
