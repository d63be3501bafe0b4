-- CreateTable
CREATE TABLE "account_erasures" (
    "id" UUID NOT NULL,
    "account_id" UUID,
    "requested_by" TEXT NOT NULL,
    "operator_id" UUID,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "counts" JSONB NOT NULL DEFAULT '{}',
    "archives" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "account_erasures_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "account_erasures_account_id_idx" ON "account_erasures"("account_id");
