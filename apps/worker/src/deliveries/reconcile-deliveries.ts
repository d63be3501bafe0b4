import { deliveryPolicyOf, requeueDelivery } from '@ingest/queue';
import type { WorkerDeps } from '../deps.js';

const BATCH = 500;

/**
 * The deliveries' outbox reconciler, as outbox-reconciler.ts is the events': a delivery
 * is recorded (with the change it tells of, or by the API) before its job is queued, and
 * Redis may refuse the job or lose it. This finds pending deliveries whose attempt is
 * overdue by more than RECONCILE_AFTER_MS and puts back those that are not in the queue,
 * due at once. Safe in every worker process at once, like the events' reconciler: a
 * delivery id is its job id, and an attempt that finds its delivery finished does nothing.
 */
export async function reconcileDeliveries(
  deps: Pick<WorkerDeps, 'db' | 'deliveryQueue' | 'config' | 'logger'>,
): Promise<number> {
  const { db, deliveryQueue, config, logger } = deps;
  const overdue = await db.pool.query<{ id: string }>({
    name: 'overdue-deliveries',
    text: `SELECT id FROM webhook_deliveries
           WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1)
           ORDER BY next_attempt_at LIMIT $2`,
    values: [config.worker.reconcileAfterMs / 1000, BATCH],
  });
  const policy = deliveryPolicyOf(config);
  let requeued = 0;
  for (const { id } of overdue.rows) {
    const outcome = await requeueDelivery(deliveryQueue, id, policy, async () => {
      const { rows } = await db.pool.query({
        name: 'is-delivery-pending',
        text: `SELECT 1 FROM webhook_deliveries WHERE id = $1::uuid AND status = 'pending'`,
        values: [id],
      });
      return rows.length > 0;
    });
    if (outcome === 'present' || outcome === 'finished') continue;
    logger.warn(
      { deliveryId: id, outcome },
      'pending delivery was not in the queue; queued it again',
    );
    requeued += 1;
  }
  return requeued;
}
