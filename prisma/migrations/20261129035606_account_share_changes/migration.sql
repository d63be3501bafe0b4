-- CreateTable
CREATE TABLE "account_share_changes" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "operator_id" UUID,
    "operator_email" TEXT NOT NULL,
    "from_weight" INTEGER NOT NULL,
    "from_max_in_flight" INTEGER,
    "to_weight" INTEGER NOT NULL,
    "to_max_in_flight" INTEGER,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "account_share_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "account_share_changes_account_id_changed_at_id_idx" ON "account_share_changes"("account_id", "changed_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "account_share_changes_operator_id_idx" ON "account_share_changes"("operator_id");

-- AddForeignKey
ALTER TABLE "account_share_changes" ADD CONSTRAINT "account_share_changes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_share_changes" ADD CONSTRAINT "account_share_changes_operator_id_fkey" FOREIGN KEY ("operator_id") REFERENCES "accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;
