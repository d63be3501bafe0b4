import { AppError, type AcceptedEvent, type EventName, type EventSchemas } from '@ingest/contracts';
import { Prisma } from '@ingest/db';
import { orderKeysOf } from '@ingest/domain';
import { enqueueContentEvent } from '@ingest/queue';
import { v7 as uuidv7 } from 'uuid';
import type { ApiDeps } from '../deps.js';
import type { Principal } from '../plugins/authentication.js';
import { requireScope } from '../plugins/authentication.js';
import { checkEnvelope, checkPayload, scopesToPublish } from './envelope.js';
import { recordableEventName, recordablePayload } from './recordable-payload.js';

type Deps = Pick<ApiDeps, 'db' | 'queue' | 'config' | 'logger'>;

export interface IngestInput {
  principal: Extract<Principal, { via: 'apiKey' }>;
  body: unknown;
  requestId: string;
  /** The caller will wait for the outcome (`Prefer: wait`): the worker should announce it. */
  notifyOnFinish: boolean;
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
): Promise<AcceptedEvent> {
  const { principal, body } = input;
  const eventField = (body as { event?: unknown } | null)?.event;
  const scopes = scopesToPublish(eventField);
  requireScope(principal, scopes, scopes.join(' or '));

  const envelope = checkEnvelope(body);
  if (!envelope.ok) return reject(deps, input, eventField, body, envelope.error);
  const payload = checkPayload(schemas, envelope.event, envelope.data);
  if (!payload.ok) return reject(deps, input, eventField, body, payload.error);

  const id = uuidv7();
  const { receivedAt } = await deps.db.prisma.webhookLog.create({
    data: {
      id,
      accountId: principal.accountId,
      apiKeyId: principal.apiKeyId,
      event: envelope.event,
      payload: payload.data,
      requestId: input.requestId,
      status: 'queued',
      orderKeys: orderKeysOf(envelope.event, payload.data),
      notifyOnFinish: input.notifyOnFinish,
    },
    select: { receivedAt: true },
  });
  await enqueueOrLeaveToReconciler(deps, envelope.event, id, input.requestId);
  return { id, event: envelope.event, status: 'queued', receivedAt: receivedAt.toISOString() };
}

async function enqueueOrLeaveToReconciler(
  deps: Deps,
  event: EventName,
  eventId: string,
  requestId: string,
): Promise<void> {
  try {
    await enqueueContentEvent(deps.queue, event, { eventId, requestId }, deps.config.jobs);
    deps.logger.debug({ eventId, requestId, event }, 'event queued');
  } catch (error) {
    // The row is committed: the event is safe. The reconciler enqueues it once Redis is back.
    deps.logger.warn(
      { err: error, eventId, requestId, event },
      'could not enqueue; left to the outbox reconciler',
    );
  }
}

// A body of `null` (or none) is recorded as JSON null, which Prisma spells JsonNull.
const jsonOrJsonNull = (value: unknown) =>
  value === null || value === undefined ? Prisma.JsonNull : (value as Prisma.InputJsonValue);

async function reject(
  deps: Deps,
  input: IngestInput,
  eventField: unknown,
  body: unknown,
  error: AppError,
): Promise<never> {
  const id = uuidv7();
  await deps.db.prisma.webhookLog.create({
    data: {
      id,
      accountId: input.principal.accountId,
      apiKeyId: input.principal.apiKeyId,
      event: recordableEventName(eventField),
      payload: jsonOrJsonNull(recordablePayload(body)),
      requestId: input.requestId,
      status: 'rejected',
      orderKeys: [],
      finishedAt: new Date(),
      error: {
        code: error.code,
        message: error.message,
        ...(error.errors ? { errors: error.errors } : {}),
      },
    },
    select: { id: true },
  });
  deps.logger.info({ eventId: id, requestId: input.requestId, code: error.code }, 'event rejected');
  throw new AppError(error.code, error.message, {
    errors: error.errors,
    extensions: { ...error.extensions, eventId: id, instance: receiptPath(id) },
  });
}
