-- DropIndex
DROP INDEX "webhook_logs_finished_at_idx";
