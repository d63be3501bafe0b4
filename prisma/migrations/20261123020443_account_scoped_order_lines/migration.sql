-- DropIndex
DROP INDEX "webhook_logs_pending_order_keys_idx";

-- CreateTable
CREATE TABLE "pending_order_keys" (
    "account_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "sequence" BIGINT NOT NULL,
    "event_id" UUID NOT NULL,

    CONSTRAINT "pending_order_keys_pkey" PRIMARY KEY ("account_id","key","sequence")
);

-- AddForeignKey
ALTER TABLE "pending_order_keys" ADD CONSTRAINT "pending_order_keys_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_logs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
