import { expireIdempotencyKeys, vacuumHotTables } from '@ingest/event-log';
import { pruneFairOrder, rebaseFairOrder } from '@ingest/fairness';
import { reconcileDeliveries } from './deliveries/reconcile-deliveries.js';
import type { WorkerDeps } from './deps.js';
import { reconcileOnce } from './outbox-reconciler.js';
import { repeatEvery, type Repeating } from './repeat.js';

/**
 * Every RECONCILE_INTERVAL_MS: re-queue recorded events and pending deliveries missing
 * from their queues, free expired Idempotency-Keys, vacuum the tables written and deleted
 * at event rate once dead rows pile up in them (hot-tables.ts in the event log), and keep
 * the fair order's levels in range and its tags few. One round at a time; a failed round
 * is logged and the next one tries again.
 */
export function startMaintenanceLoop(deps: WorkerDeps): Repeating {
  const round = async () => {
    try {
      deps.metrics.requeued.inc({ kind: 'event' }, await reconcileOnce(deps));
      deps.metrics.requeued.inc({ kind: 'delivery' }, await reconcileDeliveries(deps));
      await expireIdempotencyKeys(deps.db.pool, deps.config.idempotency.ttlHours);
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
