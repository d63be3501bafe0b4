-- CreateTable
CREATE TABLE "deployment" (
    "singleton" BOOLEAN NOT NULL DEFAULT true,
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deployment_pkey" PRIMARY KEY ("singleton")
);

-- CreateIndex
CREATE UNIQUE INDEX "deployment_id_key" ON "deployment"("id");
