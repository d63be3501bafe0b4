import type { WorkerConfig } from '@ingest/config';
import { webhookIdOf } from '@ingest/contracts';
import type { Database } from '@ingest/db';
import type { Logger } from '@ingest/logger';
import { inSpan } from '@ingest/observability';
import type { Span } from '@opentelemetry/api';
import {
  isLastDelivery,
  RetryDeliveryLater,
  retryDelayMs,
  type DeliveryJobData,
  type DeliveryQueue,
} from '@ingest/queue';
import { signDelivery } from '@ingest/signatures';
import {
  sendAttempt,
  targetPolicyOf,
  type EndpointLimiter,
  type EndpointLimits,
} from '@ingest/webhook-delivery';
import { DelayedError, type Job } from 'bullmq';
import type { WorkerMetrics } from '../metrics.js';
import { attemptLabelOf, describeOutcome, verdictOf } from './delivery-verdict.js';
import { tellPaused } from './endpoint-paused.js';
import { dueDelivery, type DueDelivery } from './due-delivery.js';
import { recordAttempt } from './record-attempt.js';

/** Receivers see who calls them. */
export const DELIVERY_USER_AGENT = 'ingest-webhooks/1.0 (+Standard Webhooks)';

export interface DeliveryDeps {
  config: Pick<WorkerConfig, 'webhooks' | 'jobs'>;
  db: Database;
  deliveryQueue: DeliveryQueue;
  /** Each endpoint's rate and in-flight limits, held across every delivery worker. */
  limiter: EndpointLimiter;
  logger: Logger;
  metrics: Pick<
    WorkerMetrics,
    'deliveryAttempts' | 'deliverySeconds' | 'endpointsDisabled' | 'endpointsPaused'
  >;
}

/** The secrets a delivery is signed with: the endpoint's, and a rotated-out one while it overlaps. */
function secretsOf(
  endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date,
): string[] {
  const { previousSecret, previousSecretExpiresAt } = endpoint;
  const overlapping =
    previousSecret !== null && previousSecretExpiresAt !== null && previousSecretExpiresAt > now;
  return overlapping ? [endpoint.secret, previousSecret] : [endpoint.secret];
}

/**
 * One delivery job: one attempt at sending a message to an endpoint. The delivery row is
 * the record, attempts counted included; the job only says which one is due. A failed
 * attempt throws RetryDeliveryLater with the schedule's wait, so that BullMQ makes the
 * next one then (the worker's backoff strategy); one that ends the delivery (a success, a
 * 410, the schedule's last attempt) returns. A worker that dies mid-attempt leaves the job
 * to be taken again: a receiver may get a message twice, with the same webhook-id (at
 * least once).
 *
 * Before an attempt, a delivery may wait, which costs it no attempt: held while its
 * endpoint is paused (the job ends; resuming queues it again), and delayed while an
 * earlier delivery of its line is unfinished or the endpoint's limits are reached.
 */
export function createDeliveryJobProcessor(deps: DeliveryDeps) {
  const { webhooks } = deps.config;
  const sending: Sending = {
    policy: targetPolicyOf(webhooks),
    limits: { timeoutMs: webhooks.timeoutMs, maxResponseBytes: webhooks.responseMaxBytes },
  };
  // A lease outlives any attempt, so that a dead worker's slot frees itself.
  const leaseMs = webhooks.timeoutMs + LEASE_MARGIN_MS;
  return async (job: Job<DeliveryJobData>, token?: string): Promise<void> => {
    const delivery = await dueDelivery(deps.db, job.data.deliveryId);
    // Gone with its endpoint (deleted), held, or already finished (a job run twice).
    if (delivery === undefined || delivery.status !== 'pending') return;
    const { endpoint } = delivery;
    if (!endpoint.enabled) {
      await deps.db.prisma.webhookDelivery.update({
        where: { id: delivery.id },
        data: { status: 'failed', error: 'the endpoint is disabled', finishedAt: new Date() },
      });
      return;
    }
    // A ping goes through a pause: it is how an owner checks the receiver is back.
    if (endpoint.paused && delivery.message.type !== 'ping') {
      if (await holdDelivery(deps.db, delivery.id, endpoint.id)) return;
      await waitBefore(job, token, 0); // resumed since it was read: due again at once
    }
    if (delivery.behind !== null) {
      const dueInMs = (delivery.behind.dueAt?.getTime() ?? 0) - Date.now();
      await waitBefore(job, token, Math.min(Math.max(dueInMs, IN_LINE_POLL_MS), IN_LINE_MAX_MS));
    }
    const admission = await deps.limiter.acquire(
      endpoint.id,
      delivery.id,
      endpoint.limits,
      leaseMs,
    );
    if (!admission.granted) await waitBefore(job, token, admission.retryInMs);

    const attributes = {
      'ingest.delivery.id': delivery.id,
      'ingest.endpoint.id': endpoint.id,
      'ingest.delivery.attempt': delivery.attempts + 1,
    };
    try {
      await inSpan('webhook.delivery_attempt', attributes, (span) =>
        attemptDelivery(deps, sending, delivery, span),
      );
    } finally {
      if (isLimited(endpoint.limits)) await deps.limiter.release(endpoint.id, delivery.id);
    }
    // Returned: the delivery ended (or was held), so the next of its line may go now.
    await wakeNextInLine(deps, delivery.id);
  };
}

const isLimited = (limits: EndpointLimits) => limits.perSecond !== null || limits.inFlight !== null;

/** How soon a delivery behind an unfinished one of its line looks again, and at most how late. */
const IN_LINE_POLL_MS = 250;
const IN_LINE_MAX_MS = 60_000;
const LEASE_MARGIN_MS = 5_000;

/** Puts the job back in the queue, due in `ms`, without counting an attempt (BullMQ's DelayedError). */
async function waitBefore(job: Job, token: string | undefined, ms: number): Promise<never> {
  await job.moveToDelayed(Date.now() + Math.max(1, Math.ceil(ms)), token);
  throw new DelayedError();
}

/**
 * Brings forward the job of the next unfinished delivery in the ended one's lines, which
 * waits (delayed) while this one was unfinished: without it, each delivery of a busy slug
 * would wait out IN_LINE_POLL_MS. One not delayed yet finds this one ended when it looks.
 * A failure here costs only that wait.
 */
async function wakeNextInLine(deps: DeliveryDeps, deliveryId: string): Promise<void> {
  try {
    const { rows } = await deps.db.pool.query<{ id: string }>({
      name: 'next-delivery-in-line',
      text: `SELECT n.id FROM webhook_deliveries d
             JOIN LATERAL (
               SELECT p.id FROM webhook_deliveries p
               WHERE p.endpoint_id = d.endpoint_id AND p.status IN ('pending', 'held')
                 AND p.position > d.position AND p.lines && d.lines
               ORDER BY p.position LIMIT 1
             ) n ON true
             WHERE d.id = $1::uuid AND cardinality(d.lines) > 0`,
      values: [deliveryId],
    });
    const next = rows[0] && (await deps.deliveryQueue.getJob(rows[0].id));
    if (next && (await next.isDelayed())) await next.promote();
  } catch (error) {
    deps.logger.debug({ err: error, deliveryId }, 'could not wake the next delivery in line');
  }
}

/**
 * A delivery to a paused endpoint waits in PostgreSQL, with no job, until a resume. It is
 * held only while the endpoint is still paused, under a share lock of its row: a resume
 * (which updates that row, then releases what is held) either sees it held or makes this
 * hold nothing. False when it held nothing.
 */
async function holdDelivery(db: Database, deliveryId: string, endpointId: string) {
  const { rowCount } = await db.pool.query({
    name: 'hold-delivery',
    text: `WITH paused AS (
             SELECT id FROM webhook_endpoints
             WHERE id = $2::uuid AND paused_at IS NOT NULL FOR SHARE)
           UPDATE webhook_deliveries SET status = 'held', next_attempt_at = NULL
           WHERE id = $1::uuid AND status = 'pending' AND EXISTS (SELECT 1 FROM paused)`,
    values: [deliveryId, endpointId],
  });
  return rowCount === 1;
}

/** Where deliveries may go, and how long and how much of an answer is waited for. */
interface Sending {
  policy: ReturnType<typeof targetPolicyOf>;
  limits: { timeoutMs: number; maxResponseBytes: number };
}

/** Sends the message once and records the attempt; throws RetryDeliveryLater when another is due. */
async function attemptDelivery(
  deps: DeliveryDeps,
  sending: Sending,
  delivery: DueDelivery,
  span: Span,
): Promise<void> {
  const { webhooks } = deps.config;
  const { endpoint, message } = delivery;
  const now = new Date();
  const headers = {
    ...signDelivery(
      { id: webhookIdOf(message.id), body: message.body },
      secretsOf(endpoint, now),
      now,
    ),
    'content-type': 'application/json',
    'user-agent': DELIVERY_USER_AGENT,
  };
  const outcome = await sendAttempt(
    { url: endpoint.url, body: message.body, headers },
    sending.policy,
    sending.limits,
  );
  const verdict = verdictOf(outcome);
  const label = attemptLabelOf(outcome);
  span.setAttribute('ingest.delivery.outcome', label);
  deps.metrics.deliveryAttempts.inc({ outcome: label });
  deps.metrics.deliverySeconds.observe({ outcome: label }, outcome.latencyMs / 1000);
  const attempt = delivery.attempts + 1;
  const last = isLastDelivery(webhooks.retryScheduleMs, attempt);
  const retryAfterMs = outcome.kind === 'answered' ? (outcome.retryAfterMs ?? 0) : 0;
  const waitMs = Math.max(retryDelayMs(webhooks.retryScheduleMs, attempt), retryAfterMs);
  // A limited endpoint's Retry-After holds every delivery to it; any other's, this one.
  if (retryAfterMs > 0 && isLimited(endpoint.limits))
    await deps.limiter.holdFor(endpoint.id, retryAfterMs);
  const at = new Date();
  const judged = await recordAttempt(deps.db, {
    deliveryId: delivery.id,
    endpointId: endpoint.id,
    outcome,
    verdict,
    nextAttemptAt: verdict === 'retry' && !last ? new Date(at.getTime() + waitMs) : null,
    pauseFailingSince: new Date(at.getTime() - webhooks.breakerAfterMs),
    at,
  });
  if (judged === 'disabled') {
    deps.metrics.endpointsDisabled.inc({ reason: 'gone' });
    deps.logger.warn(
      { endpointId: endpoint.id, outcome: describeOutcome(outcome) },
      'webhook endpoint disabled',
    );
  }
  if (judged === 'paused') {
    deps.metrics.endpointsPaused.inc();
    deps.logger.warn(
      { endpointId: endpoint.id, outcome: describeOutcome(outcome) },
      'webhook endpoint paused by the breaker',
    );
    await tellPaused(deps, { id: endpoint.id, accountId: endpoint.accountId, url: endpoint.url });
  }
  if (verdict === 'retry' && !last && judged === undefined) {
    throw new RetryDeliveryLater(describeOutcome(outcome), waitMs);
  }
}
