import type { WorkerConfig } from '@ingest/config';
import { webhookIdOf, DAY_MS } from '@ingest/contracts';
import type { Database } from '@ingest/db';
import type { Logger } from '@ingest/logger';
import { inSpan } from '@ingest/observability';
import type { Span } from '@opentelemetry/api';
import {
  isLastDelivery,
  RetryDeliveryLater,
  retryDelayMs,
  type DeliveryJobData,
} from '@ingest/queue';
import { signDelivery } from '@ingest/signatures';
import { sendAttempt, targetPolicyOf } from '@ingest/webhook-delivery';
import type { Job } from 'bullmq';
import type { WorkerMetrics } from '../metrics.js';
import { attemptLabelOf, describeOutcome, verdictOf } from './delivery-verdict.js';
import { recordAttempt } from './record-attempt.js';

/** Receivers see who calls them. */
export const DELIVERY_USER_AGENT = 'ingest-webhooks/1.0 (+Standard Webhooks)';

export interface DeliveryDeps {
  config: Pick<WorkerConfig, 'webhooks'>;
  db: Database;
  logger: Logger;
  metrics: Pick<WorkerMetrics, 'deliveryAttempts' | 'deliverySeconds' | 'endpointsDisabled'>;
}

interface DueDelivery {
  id: string;
  status: string;
  attempts: number;
  message: { id: string; body: string };
  endpoint: {
    id: string;
    url: string;
    enabled: boolean;
    secret: string;
    previousSecret: string | null;
    previousSecretExpiresAt: Date | null;
  };
}

/** The statement's row: the delivery's columns, then its message's and its endpoint's. */
interface DueDeliveryRow {
  id: string;
  status: string;
  attempts: number;
  messageId: string;
  body: string;
  endpointId: string;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * A delivery with its message and endpoint, in one prepared statement: every attempt
 * starts here, and Prisma's `findUnique` with `include` would cost several.
 */
async function dueDelivery(db: Database, deliveryId: string): Promise<DueDelivery | undefined> {
  const { rows } = await db.pool.query<DueDeliveryRow>({
    name: 'due-delivery',
    text: `SELECT d.id, d.status, d.attempts, m.id AS "messageId", m.body,
                  e.id AS "endpointId", e.url, e.enabled, e.secret,
                  e.previous_secret AS "previousSecret",
                  e.previous_secret_expires_at AS "previousSecretExpiresAt"
           FROM webhook_deliveries d
           JOIN webhook_messages m ON m.id = d.message_id
           JOIN webhook_endpoints e ON e.id = d.endpoint_id
           WHERE d.id = $1::uuid`,
    values: [deliveryId],
  });
  const [row] = rows;
  if (row === undefined) return undefined;
  return {
    id: row.id,
    status: row.status,
    attempts: row.attempts,
    message: { id: row.messageId, body: row.body },
    endpoint: {
      id: row.endpointId,
      url: row.url,
      enabled: row.enabled,
      secret: row.secret,
      previousSecret: row.previousSecret,
      previousSecretExpiresAt: row.previousSecretExpiresAt,
    },
  };
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
 * 410, the schedule's last attempt) returns. A worker that dies
 * mid-attempt leaves the job to be taken again: a receiver may get a message twice, with
 * the same webhook-id (at least once).
 */
export function createDeliveryJobProcessor(deps: DeliveryDeps) {
  const { webhooks } = deps.config;
  const sending: Sending = {
    policy: targetPolicyOf(webhooks),
    limits: { timeoutMs: webhooks.timeoutMs, maxResponseBytes: webhooks.responseMaxBytes },
  };
  return async (job: Pick<Job<DeliveryJobData>, 'data'>): Promise<void> => {
    const delivery = await dueDelivery(deps.db, job.data.deliveryId);
    // Gone with its endpoint (deleted), or already finished (a job run twice).
    if (delivery === undefined || delivery.status !== 'pending') return;
    const { endpoint } = delivery;
    if (!endpoint.enabled) {
      await deps.db.prisma.webhookDelivery.update({
        where: { id: delivery.id },
        data: { status: 'failed', error: 'the endpoint is disabled', finishedAt: new Date() },
      });
      return;
    }

    const attributes = {
      'ingest.delivery.id': delivery.id,
      'ingest.endpoint.id': endpoint.id,
      'ingest.delivery.attempt': delivery.attempts + 1,
    };
    await inSpan('webhook.delivery_attempt', attributes, (span) =>
      attemptDelivery(deps, sending, delivery, span),
    );
  };
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
  const waitMs = retryDelayMs(webhooks.retryScheduleMs, attempt);
  const at = new Date();
  const disabled = await recordAttempt(deps.db, {
    deliveryId: delivery.id,
    endpointId: endpoint.id,
    outcome,
    verdict,
    nextAttemptAt: verdict === 'retry' && !last ? new Date(at.getTime() + waitMs) : null,
    disableFailingSince: new Date(at.getTime() - webhooks.disableAfterDays * DAY_MS),
    at,
  });
  if (disabled) {
    deps.metrics.endpointsDisabled.inc({ reason: verdict === 'gone' ? 'gone' : 'failing' });
    deps.logger.warn(
      { endpointId: endpoint.id, outcome: describeOutcome(outcome) },
      'webhook endpoint disabled',
    );
  }
  if (verdict === 'retry' && !last && !disabled) {
    throw new RetryDeliveryLater(describeOutcome(outcome), waitMs);
  }
}
