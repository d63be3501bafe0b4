-- CreateTable
CREATE TABLE "article_slug_counters" (
    "base" TEXT NOT NULL,
    "last_suffix" INTEGER NOT NULL,

    CONSTRAINT "article_slug_counters_pkey" PRIMARY KEY ("base")
);
