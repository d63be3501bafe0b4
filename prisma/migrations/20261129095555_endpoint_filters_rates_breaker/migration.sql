-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN     "filter" JSONB,
ADD COLUMN     "max_in_flight" INTEGER,
ADD COLUMN     "paused_at" TIMESTAMPTZ(3),
ADD COLUMN     "paused_reason" TEXT,
ADD COLUMN     "rate_per_second" INTEGER;

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "lines" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "position" BIGSERIAL NOT NULL;

-- CreateIndex
CREATE INDEX "webhook_deliveries_unfinished_idx" ON "webhook_deliveries"("endpoint_id", "position") WHERE (status IN ('pending', 'held'));
