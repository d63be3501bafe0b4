import { AppError, type AcceptedEvent, type EventSchemas } from '@ingest/contracts';
import { orderKeysOf } from '@ingest/domain';
import { insertRejected, recordAcceptedOnce, type AcceptedRecord } from '@ingest/event-log';
import { v7 as uuidv7 } from 'uuid';
import type { ApiDeps } from '../deps.js';
import { requireScope, type Principal } from '../plugins/authentication.js';
import type { AcceptBatcher } from './accept-batcher.js';
import { enqueueOrLeaveToReconciler } from './enqueue-accepted.js';
import { checkEnvelope, checkPayload, scopesToPublish } from './envelope.js';
import { idempotencyKeyFrom, requestHashOf } from './idempotency.js';
import { recordableEventName, recordablePayload } from './recordable-payload.js';

type Deps = Pick<ApiDeps, 'db' | 'queue' | 'config' | 'logger' | 'acceptedCounter' | 'metrics'> & {
  acceptBatcher: AcceptBatcher;
};

export interface IngestInput {
  principal: Extract<Principal, { via: 'apiKey' }>;
  body: unknown;
  requestId: string;
  /** The `Idempotency-Key` header as received. */
  idempotencyKey: string | string[] | undefined;
  /** The caller will wait for the outcome (`Prefer: wait`): the worker should announce it. */
  notifyOnFinish: boolean;
}

export interface IngestOutcome {
  accepted: AcceptedEvent;
  /** The Idempotency-Key named an event already recorded: this is its original answer. */
  replayed: boolean;
}

export const receiptPath = (id: string): string => `/api/webhooks/content/${id}`;

/**
 * POST /api/webhooks/content after key validation, in the spec's order: scope check,
 * validation, WebhookLog record (durable before anything is answered), enqueue. An
 * invalid event is recorded as `rejected` and answered with its error; a valid one is
 * recorded as `queued` and answered 202 once its row is committed, even when Redis
 * cannot take the job: the worker's outbox reconciler queues it later.
 */
export async function ingestEvent(
  deps: Deps,
  schemas: EventSchemas,
  input: IngestInput,
): Promise<IngestOutcome> {
  const { principal, body } = input;
  const eventField = (body as { event?: unknown } | null)?.event;
  const scopes = scopesToPublish(eventField);
  requireScope(principal, scopes, scopes.join(' or '));

  const idempotency = idempotencyKeyFrom(input.idempotencyKey);
  const refuse = (error: AppError) => reject(deps, input, eventField, error);
  if ('problem' in idempotency) {
    return refuse(
      new AppError('VALIDATION_FAILED', 'The Idempotency-Key header is malformed', {
        errors: [idempotency.problem],
      }),
    );
  }
  const envelope = checkEnvelope(body);
  if (!envelope.ok) return refuse(envelope.error);
  const payload = checkPayload(schemas, envelope.event, envelope.data);
  if (!payload.ok) return refuse(payload.error);

  const record: AcceptedRecord = {
    id: uuidv7(),
    accountId: principal.accountId,
    apiKeyId: principal.apiKeyId,
    event: envelope.event,
    payload: payload.data,
    requestId: input.requestId,
    orderKeys: orderKeysOf(envelope.event, payload.data),
    notifyOnFinish: input.notifyOnFinish,
  };
  if (idempotency.key === undefined) {
    // Written and queued together with the other requests of the moment (group commit).
    const receivedAt = await deps.acceptBatcher.accept(record);
    countAccepted(deps, record);
    return { accepted: acceptedAnswer(record.id, record.event, receivedAt), replayed: false };
  }

  // Claimed and recorded in one transaction: requests with the same key wait on it.
  const outcome = await recordAcceptedOnce(deps.db.pool, record, {
    key: idempotency.key,
    requestHash: requestHashOf({ event: envelope.event, data: payload.data }),
    ttlHours: deps.config.idempotency.ttlHours,
  });
  if ('replayOf' in outcome) {
    return { accepted: await originalAnswer(deps, outcome.replayOf), replayed: true };
  }
  await enqueueOrLeaveToReconciler(deps, [record]);
  countAccepted(deps, record);
  return { accepted: acceptedAnswer(record.id, record.event, outcome.receivedAt), replayed: false };
}

const acceptedAnswer = (id: string, event: string, receivedAt: Date): AcceptedEvent => ({
  id,
  event,
  status: 'queued',
  receivedAt: receivedAt.toISOString(),
});

async function originalAnswer(deps: Deps, eventId: string): Promise<AcceptedEvent> {
  const original = await deps.db.prisma.webhookLog.findUniqueOrThrow({
    where: { id: eventId },
    select: { id: true, event: true, receivedAt: true },
  });
  return acceptedAnswer(original.id, original.event ?? '', original.receivedAt);
}

function countAccepted(deps: Deps, record: AcceptedRecord): void {
  deps.acceptedCounter.increment();
  deps.metrics.eventsAccepted.inc({ event: record.event });
}

async function reject(
  deps: Deps,
  input: IngestInput,
  eventField: unknown,
  error: AppError,
): Promise<never> {
  const id = uuidv7();
  await insertRejected(deps.db.pool, {
    id,
    accountId: input.principal.accountId,
    apiKeyId: input.principal.apiKeyId,
    requestId: input.requestId,
    event: recordableEventName(eventField),
    payload: recordablePayload(input.body),
    // The message and field paths may quote what was sent (an unknown field's name):
    // cleaned like the payload, or PostgreSQL would refuse the row.
    error: recordablePayload({
      code: error.code,
      message: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
    }),
  });
  deps.metrics.eventsRejected.inc({ code: error.code });
  deps.logger.info({ eventId: id, requestId: input.requestId, code: error.code }, 'event rejected');
  throw new AppError(error.code, error.message, {
    errors: error.errors,
    extensions: { ...error.extensions, eventId: id, instance: receiptPath(id) },
  });
}
