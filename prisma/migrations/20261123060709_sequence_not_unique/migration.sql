-- DropIndex
DROP INDEX "webhook_logs_sequence_key";
