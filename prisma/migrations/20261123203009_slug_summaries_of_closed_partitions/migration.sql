-- CreateTable
CREATE TABLE "webhook_log_key_summaries" (
    "id" SERIAL NOT NULL,
    "partition" TEXT NOT NULL,
    "relid" BIGINT NOT NULL,
    "from_id" UUID,
    "to_id" UUID NOT NULL,
    "summarized_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_log_key_summaries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_log_partition_keys" (
    "key" TEXT NOT NULL,
    "summary_id" INTEGER NOT NULL,

    CONSTRAINT "webhook_log_partition_keys_pkey" PRIMARY KEY ("key","summary_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_log_key_summaries_partition_key" ON "webhook_log_key_summaries"("partition");

-- CreateIndex
CREATE INDEX "webhook_log_partition_keys_summary_id_idx" ON "webhook_log_partition_keys"("summary_id");

-- AddForeignKey
ALTER TABLE "webhook_log_partition_keys" ADD CONSTRAINT "webhook_log_partition_keys_summary_id_fkey" FOREIGN KEY ("summary_id") REFERENCES "webhook_log_key_summaries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
