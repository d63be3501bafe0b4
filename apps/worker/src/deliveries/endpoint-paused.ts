import { ENDPOINT_PAUSED_MESSAGE, compileFilter, type MessageFilter } from '@ingest/events';
import { inTransaction } from '@ingest/event-log';
import { deliveryPolicyOf, enqueueDeliveries } from '@ingest/queue';
import { v7 as uuidv7 } from 'uuid';
import type { DeliveryDeps } from './deliver-job.js';

interface PausedEndpoint {
  id: string;
  accountId: string;
  url: string;
}

/**
 * Tells the account that the breaker paused one of its endpoints: an `endpoint.paused`
 * message to each of its other endpoints that subscribe to it and are delivering (never to
 * the paused one, which cannot take it). Written after the pause has committed; a failure
 * here is logged and leaves the pause, which the endpoint's state and /metrics show too.
 */
export async function tellPaused(
  deps: Pick<DeliveryDeps, 'db' | 'deliveryQueue' | 'config' | 'logger'>,
  endpoint: PausedEndpoint,
): Promise<void> {
  try {
    const deliveryIds = await recordPausedMessage(deps, endpoint);
    await enqueueDeliveries(
      deps.deliveryQueue,
      deliveryIds.map((deliveryId) => ({ deliveryId })),
      deliveryPolicyOf(deps.config),
    );
  } catch (error) {
    deps.logger.warn(
      { err: error, endpointId: endpoint.id },
      'could not tell the account its endpoint is paused',
    );
  }
}

async function recordPausedMessage(
  deps: Pick<DeliveryDeps, 'db'>,
  endpoint: PausedEndpoint,
): Promise<string[]> {
  return inTransaction(deps.db.pool, async (tx) => {
    const { rows: paused } = await tx.query<{ pausedAt: Date; reason: string }>(
      `SELECT paused_at AS "pausedAt", paused_reason AS reason FROM webhook_endpoints
       WHERE id = $1 AND paused_at IS NOT NULL`,
      [endpoint.id],
    );
    const state = paused[0];
    if (state === undefined) return [];
    const body = {
      type: ENDPOINT_PAUSED_MESSAGE.type,
      timestamp: state.pausedAt.toISOString(),
      data: {
        endpointId: endpoint.id,
        url: endpoint.url,
        pausedAt: state.pausedAt.toISOString(),
        reason: state.reason,
      },
    };
    const { rows: listeners } = await tx.query<{ id: string; filter: MessageFilter | null }>(
      `SELECT id, filter FROM webhook_endpoints
       WHERE account_id = $1 AND id <> $2 AND enabled AND paused_at IS NULL
         AND $3 = ANY(events)`,
      [endpoint.accountId, endpoint.id, ENDPOINT_PAUSED_MESSAGE.type],
    );
    const told = listeners.filter((l) => l.filter === null || compileFilter(l.filter)(body));
    if (told.length === 0) return [];
    const messageId = uuidv7();
    await tx.query(
      `INSERT INTO webhook_messages (id, account_id, type, body) VALUES ($1, $2, $3, $4)`,
      [messageId, endpoint.accountId, body.type, JSON.stringify(body)],
    );
    const ids = told.map(() => uuidv7());
    await tx.query(
      `INSERT INTO webhook_deliveries (id, message_id, endpoint_id, next_attempt_at)
       SELECT d.id, $2, d.endpoint_id, now()
       FROM unnest($1::uuid[], $3::uuid[]) AS d(id, endpoint_id)`,
      [ids, messageId, told.map((l) => l.id)],
    );
    return ids;
  });
}
