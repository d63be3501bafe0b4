import type { WebhookEndpoint } from '@ingest/db';
import { deliveryPolicyOf, requeueDelivery } from '@ingest/queue';
import type { ApiDeps } from '../deps.js';
import { getEndpoint } from './webhook-endpoints.js';

type Deps = Pick<ApiDeps, 'db' | 'config' | 'deliveryQueue' | 'logger'>;

/** Deliveries a resume queues again at once. */
const RESUME_CONCURRENCY = 32;

/**
 * Holds an endpoint's deliveries: each due one is held as its attempt comes, none fails,
 * and a ping still goes through. Pausing a paused endpoint keeps its first reason.
 */
export async function pauseEndpoint(
  deps: Deps,
  accountId: string,
  id: string,
): Promise<WebhookEndpoint> {
  await getEndpoint(deps, accountId, id);
  await deps.db.pool.query(
    `UPDATE webhook_endpoints SET paused_at = now(), paused_reason = 'paused by its owner'
     WHERE id = $1 AND paused_at IS NULL`,
    [id],
  );
  return getEndpoint(deps, accountId, id);
}

/**
 * Lets an endpoint's deliveries flow again, the breaker's streak forgotten: its held
 * deliveries are due at once and queued about in the order they were recorded; deliveries
 * of one line go one after the other whatever the queue's order (the delivery job waits for
 * the earlier one).
 * Redis refusing leaves them pending, for the delivery reconciler.
 */
export async function resumeEndpoint(
  deps: Deps,
  accountId: string,
  id: string,
): Promise<WebhookEndpoint> {
  await getEndpoint(deps, accountId, id);
  const released = await deps.db.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`
      UPDATE webhook_endpoints SET paused_at = NULL, paused_reason = NULL, failing_since = NULL
      WHERE id = ${id}::uuid`;
    return tx.$queryRaw<Array<{ id: string }>>`
      WITH released AS (
        UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now()
        WHERE endpoint_id = ${id}::uuid AND status = 'held'
        RETURNING id, position)
      SELECT id FROM released ORDER BY position`;
  });
  // A held delivery's job is done with (completed): each is retried, not added again.
  const policy = deliveryPolicyOf(deps.config);
  const stillHeldUntilNow = () => Promise.resolve(true);
  try {
    for (let from = 0; from < released.length; from += RESUME_CONCURRENCY) {
      await Promise.all(
        released
          .slice(from, from + RESUME_CONCURRENCY)
          .map((row) => requeueDelivery(deps.deliveryQueue, row.id, policy, stillHeldUntilNow)),
      );
    }
  } catch (error) {
    deps.logger.warn(
      { err: error, endpointId: id, deliveries: released.length },
      'could not queue the resumed deliveries; the reconciler will',
    );
  }
  return getEndpoint(deps, accountId, id);
}
