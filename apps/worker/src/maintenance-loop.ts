import { expireIdempotencyKeys } from '@ingest/event-log';
import { pruneFairOrder, rebaseFairOrder } from '@ingest/queue';
import { reconcileDeliveries } from './deliveries/reconcile-deliveries.js';
import type { WorkerDeps } from './deps.js';
import { reconcileOnce } from './outbox-reconciler.js';

export interface MaintenanceLoop {
  stop(): Promise<void>;
}

/**
 * Every RECONCILE_INTERVAL_MS: re-queue recorded events and pending deliveries missing
 * from their queues, free expired Idempotency-Keys, and keep the fair order's levels in
 * range (a shift about once a day under constant load) and its tags few. One round at a
 * time; a failed round is logged and the next one tries again (during an outage, every
 * round fails until it is over).
 */
export function startMaintenanceLoop(deps: WorkerDeps): MaintenanceLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const round = async () => {
    try {
      await reconcileOnce(deps);
      await reconcileDeliveries(deps);
      await expireIdempotencyKeys(deps.db.pool, deps.config.idempotency.ttlHours);
      const shift = await rebaseFairOrder(deps.queue);
      if (shift > 0) deps.logger.info({ shift }, 'fair order: every level moved down');
      await pruneFairOrder(deps.queue);
    } catch (error) {
      deps.logger.warn({ err: error }, 'maintenance round failed; will try again');
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round().finally(schedule);
    }, deps.config.worker.reconcileIntervalMs);
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
