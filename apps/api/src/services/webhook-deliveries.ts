import { AppError, type DeliveryListQuery } from '@ingest/contracts';
import type { Prisma } from '@ingest/db';
import { deliveryPolicyOf, enqueueDeliveries } from '@ingest/queue';
import { v7 as uuidv7 } from 'uuid';
import type { ApiDeps } from '../deps.js';
import { inOneSnapshot } from './one-snapshot.js';
import { rowsAfter, toPage } from './pagination.js';
import { getEndpoint } from './webhook-endpoints.js';
import { presentDelivery, type DeliveryRow } from './present-delivery.js';

type Deps = Pick<ApiDeps, 'db' | 'config' | 'deliveryQueue' | 'logger'>;

export const DELIVERY_FIELDS = {
  id: true,
  messageId: true,
  endpointId: true,
  status: true,
  attempts: true,
  nextAttemptAt: true,
  responseStatus: true,
  latencyMs: true,
  responseBody: true,
  error: true,
  createdAt: true,
  finishedAt: true,
  message: { select: { type: true } },
} as const satisfies Prisma.WebhookDeliverySelect;

/**
 * Queues the deliveries just recorded. Redis refusing is answered as 503: the rows stay
 * pending, and the worker's delivery reconciler queues them once Redis is back.
 */
export async function queueDeliveries(
  deps: Pick<Deps, 'config' | 'deliveryQueue' | 'logger'>,
  ids: string[],
): Promise<void> {
  try {
    // Their spans go in the trace of the request that asked for them (a resend).
    await enqueueDeliveries(
      deps.deliveryQueue,
      ids.map((deliveryId) => ({ deliveryId })),
      deliveryPolicyOf(deps.config),
    );
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not queue webhook deliveries');
    throw new AppError('UNAVAILABLE', 'The delivery queue is unavailable; try again shortly', {
      headers: { 'retry-after': '5' },
      cause: error,
    });
  }
}

/**
 * Sends the endpoint a `ping`: a message of its own, delivered like any other (signed,
 * retried on the schedule), so a subscriber can check its receiver end to end. An
 * endpoint that is disabled is pinged too: that is how its owner checks it is back.
 */
export async function pingEndpoint(deps: Deps, accountId: string, endpointId: string) {
  const endpoint = await getEndpoint(deps, accountId, endpointId);
  const messageId = uuidv7();
  const deliveryId = uuidv7();
  const body = JSON.stringify({
    type: 'ping',
    timestamp: new Date().toISOString(),
    data: { endpointId: endpoint.id, url: endpoint.url },
  });
  const delivery = await deps.db.prisma.$transaction(async (tx) => {
    await tx.webhookMessage.create({ data: { id: messageId, accountId, type: 'ping', body } });
    return tx.webhookDelivery.create({
      data: { id: deliveryId, messageId, endpointId: endpoint.id, nextAttemptAt: new Date() },
      select: DELIVERY_FIELDS,
    });
  });
  await queueDeliveries(deps, [deliveryId]);
  return presentDelivery(delivery);
}

/** An endpoint's deliveries, newest first, a page at a time. */
export async function listDeliveries(
  deps: Deps,
  accountId: string,
  endpointId: string,
  query: DeliveryListQuery,
) {
  await getEndpoint(deps, accountId, endpointId);
  // Each delivery's message is read by a statement of its own: one snapshot.
  const rows: DeliveryRow[] = await inOneSnapshot(deps, (tx) =>
    tx.webhookDelivery.findMany({
      where: { endpointId, ...rowsAfter(query.cursor, 'createdAt') },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit + 1,
      select: DELIVERY_FIELDS,
    }),
  );
  return toPage(rows, query.limit, (row) => row.createdAt, presentDelivery);
}

/**
 * Delivers a message to the endpoint again, whatever became of it before: a new delivery
 * of the same message (the same `webhook-id`, so a receiver that has it can drop it),
 * with a fresh schedule of attempts.
 */
export async function resendDelivery(
  deps: Deps,
  accountId: string,
  endpointId: string,
  deliveryId: string,
) {
  await getEndpoint(deps, accountId, endpointId);
  const previous = await deps.db.prisma.webhookDelivery.findFirst({
    where: { id: deliveryId, endpointId },
    select: { messageId: true },
  });
  if (previous === null) throw new AppError('NOT_FOUND', 'No delivery with this id');
  return presentDelivery(await deliverAgain(deps, { messageId: previous.messageId, endpointId }));
}

/**
 * A new delivery of a message to an endpoint, queued: the same `webhook-id`, a fresh
 * schedule of attempts. The row selects DELIVERY_FIELDS and `select`.
 */
export async function deliverAgain<Select extends Prisma.WebhookDeliverySelect>(
  deps: Deps,
  { messageId, endpointId }: { messageId: string; endpointId: string },
  select?: Select,
) {
  const delivery = await deps.db.prisma.webhookDelivery.create({
    data: { id: uuidv7(), messageId, endpointId, nextAttemptAt: new Date() },
    select: { ...DELIVERY_FIELDS, ...select },
  });
  await queueDeliveries(deps, [delivery.id]);
  return delivery;
}
