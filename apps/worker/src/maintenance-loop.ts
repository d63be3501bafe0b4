import { expireIdempotencyKeys, vacuumHotTables } from '@ingest/event-log';
import { continueErasure } from '@ingest/erasure';
import { pruneFairOrder, rebaseFairOrder } from '@ingest/fairness';
import { expireWebhookMessages } from './deliveries/expire-messages.js';
import { reconcileDeliveries } from './deliveries/reconcile-deliveries.js';
import type { WorkerDeps } from './deps.js';
import { reconcileOnce } from './outbox-reconciler.js';
import { repeatEvery, type Repeating } from './repeat.js';

/** Works on an account's erasure, if one runs (@ingest/erasure). */
async function eraseAccounts(deps: WorkerDeps): Promise<void> {
  const { config, queues } = deps;
  const progress = await continueErasure({
    // Sessions of their own: an erasure is held by a session advisory lock.
    pool: deps.db.direct,
    redis: deps.redis,
    keyPrefix: config.redis.keyPrefix,
    queues: queues.all,
    deliveryQueue: deps.deliveryQueue,
    archiveDir: config.eventLog.archiveDir,
    settleMs: config.worker.erasureSettleMs,
    batchRows: ERASURE_BATCH_ROWS,
  });
  if (progress === undefined) return;
  deps.logger.info(
    { erasure: progress.id, deleted: progress.deleted, finished: progress.finished },
    progress.finished ? 'account erasure finished' : 'account erasure under way',
  );
}

/** Rows of each table one erasure batch deletes: each batch is one short transaction. */
const ERASURE_BATCH_ROWS = 2_000;

/**
 * Every RECONCILE_INTERVAL_MS: re-queue recorded events and pending deliveries missing
 * from their queues, delete webhook messages past WEBHOOK_RETENTION_DAYS with their
 * deliveries, free expired Idempotency-Keys, vacuum the tables written and deleted at
 * event rate once dead rows pile up in them (hot-tables.ts in the event log), and keep
 * the fair order's levels in range and its tags few, and work on an account's erasure. One round at a time; a failed round
 * is logged and the next one tries again.
 */
export function startMaintenanceLoop(deps: WorkerDeps): Repeating {
  const round = async () => {
    try {
      deps.metrics.requeued.inc({ kind: 'event' }, await reconcileOnce(deps));
      deps.metrics.requeued.inc({ kind: 'delivery' }, await reconcileDeliveries(deps));
      const expired = await expireWebhookMessages(deps.db.pool, {
        retentionDays: deps.config.webhooks.retentionDays,
      });
      if (expired.messages > 0) deps.logger.info(expired, 'expired webhook messages deleted');
      await expireIdempotencyKeys(deps.db.pool, deps.config.idempotency.ttlHours);
      await eraseAccounts(deps);
      const vacuumed = await vacuumHotTables(deps.db.pool);
      if (vacuumed.length > 0) deps.logger.info({ tables: vacuumed }, 'hot tables vacuumed');
      for (const queue of deps.queues.all) {
        const shift = await rebaseFairOrder(queue);
        if (shift > 0) {
          deps.logger.info({ shift, queue: queue.name }, 'fair order: every level moved down');
        }
        await pruneFairOrder(queue);
      }
    } catch (error) {
      deps.logger.warn({ err: error }, 'maintenance round failed; will try again');
    }
  };
  return repeatEvery(deps.config.worker.reconcileIntervalMs, round);
}
