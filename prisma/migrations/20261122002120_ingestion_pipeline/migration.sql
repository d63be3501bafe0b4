-- CreateTable
CREATE TABLE "webhook_logs" (
    "id" UUID NOT NULL,
    "sequence" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "api_key_id" UUID,
    "event" TEXT,
    "payload" JSONB NOT NULL,
    "request_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "order_keys" TEXT[],
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "notify_on_finish" BOOLEAN NOT NULL DEFAULT false,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "result" JSONB,
    "error" JSONB,

    CONSTRAINT "webhook_logs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_attempts" (
    "event_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "outcome" TEXT,
    "error" JSONB,

    CONSTRAINT "event_attempts_pkey" PRIMARY KEY ("event_id","number")
);

-- CreateTable
CREATE TABLE "categories" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "name_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "categories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "articles" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "excerpt" TEXT,
    "body" TEXT[],
    "cover" TEXT,
    "category_id" UUID,
    "read_minutes" INTEGER NOT NULL,
    "read_minutes_computed" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "articles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "highlights" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "article_id" UUID,
    "title" TEXT NOT NULL,
    "video_url" TEXT NOT NULL,
    "thumbnail_url" TEXT,
    "duration_seconds" INTEGER,
    "description" TEXT,
    "tags" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "highlights_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_logs_sequence_key" ON "webhook_logs"("sequence");

-- CreateIndex
CREATE INDEX "webhook_logs_account_id_received_at_id_idx" ON "webhook_logs"("account_id", "received_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_logs_pending_order_keys_idx" ON "webhook_logs" USING GIN ("order_keys") WHERE (status IN ('queued', 'processing'));

-- CreateIndex
CREATE INDEX "webhook_logs_unfinished_idx" ON "webhook_logs"("status", "received_at") WHERE (status IN ('queued', 'processing'));

-- CreateIndex
CREATE UNIQUE INDEX "categories_name_key_key" ON "categories"("name_key");

-- CreateIndex
CREATE UNIQUE INDEX "articles_slug_key" ON "articles"("slug");

-- CreateIndex
CREATE INDEX "articles_created_at_id_idx" ON "articles"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "articles_account_id_created_at_id_idx" ON "articles"("account_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "articles_category_id_created_at_id_idx" ON "articles"("category_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "highlights_created_at_id_idx" ON "highlights"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "highlights_article_id_idx" ON "highlights"("article_id");

-- AddForeignKey
ALTER TABLE "webhook_logs" ADD CONSTRAINT "webhook_logs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_logs" ADD CONSTRAINT "webhook_logs_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_attempts" ADD CONSTRAINT "event_attempts_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_logs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "articles" ADD CONSTRAINT "articles_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "articles" ADD CONSTRAINT "articles_category_id_fkey" FOREIGN KEY ("category_id") REFERENCES "categories"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "highlights" ADD CONSTRAINT "highlights_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "highlights" ADD CONSTRAINT "highlights_article_id_fkey" FOREIGN KEY ("article_id") REFERENCES "articles"("id") ON DELETE SET NULL ON UPDATE CASCADE;
