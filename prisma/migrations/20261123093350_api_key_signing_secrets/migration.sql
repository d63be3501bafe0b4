-- Request signatures (Standard Webhooks): every API key gets a signing secret.
-- Generated, then edited by hand: the generated `signing_secret TEXT NOT NULL` fails on a
-- database that has keys. Existing keys get a secret here, `whsec_` and the base64 of 32
-- bytes drawn from two gen_random_uuid() (PostgreSQL's strong random source, 244 random
-- bits in all); their owners see it only by rotating it, which they must do to sign.
ALTER TABLE "api_keys" ADD COLUMN     "previous_secret_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "previous_signing_secret" TEXT,
ADD COLUMN     "require_signature" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "signing_secret" TEXT;

UPDATE "api_keys"
SET "signing_secret" = 'whsec_' || encode(
  decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64');

ALTER TABLE "api_keys" ALTER COLUMN "signing_secret" SET NOT NULL;
