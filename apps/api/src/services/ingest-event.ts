import {
  AppError,
  isAppError,
  receiptPath,
  type AcceptedEvent,
  type EventData,
  type EventName,
  type EventSchemas,
} from '@ingest/contracts';
import { orderKeysOf } from '@ingest/domain';
import { eventAttributes, inSpan } from '@ingest/observability';
import {
  insertRejected,
  newEventId,
  type AcceptedEntry,
  type IdempotencyClaim,
  type QueuedEvent,
} from '@ingest/event-log';
import { requireScope, type KeyPrincipal } from '../access/principal.js';
import type { ApiDeps } from '../deps.js';
import { checkEnvelope, checkPayload, scopesToPublish } from './envelope.js';
import { requestHashOf } from './idempotency.js';
import {
  acceptedAnswer,
  countAccepted,
  countRejected,
  originalAnswers,
  originalOf,
  rejectedRow,
} from './event-answers.js';
import { idempotencyKeyOf, verifyCallSignature, type SignedCall } from './request-signature.js';

type Deps = Pick<
  ApiDeps,
  'db' | 'queues' | 'config' | 'logger' | 'acceptBatcher' | 'acceptedCounter' | 'metrics'
>;

export interface IngestInput {
  principal: KeyPrincipal;
  /** The call's signature headers, its body's bytes and the key's signing secrets. */
  signature: SignedCall;
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

/**
 * POST /api/webhooks/content after the key was found, in the spec's order: the rest of
 * key validation (its request signature), scope check, validation, WebhookLog record
 * (durable before anything is answered), enqueue. A refused signature and an
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
  const eventField =
    typeof body === 'object' && body !== null && 'event' in body ? body.event : undefined;
  let signed: { webhookId: string } | undefined;
  try {
    signed = verifyCallSignature(input.signature);
  } catch (error) {
    // Refused by its own key: recorded as rejected, like an invalid event.
    if (isAppError(error)) await rejectCall(deps, input, eventField, error);
    throw error;
  }
  const scopes = scopesToPublish(eventField);
  requireScope(principal, scopes, scopes.join(' or '));

  let checked: CheckedCall;
  try {
    checked = checkCall(schemas, input, signed);
  } catch (error) {
    // An invalid call is still a call: recorded as rejected, then answered with its error.
    if (isAppError(error)) await rejectCall(deps, input, eventField, error);
    throw error;
  }
  const { idempotencyKey, event, data } = checked;

  const { queued, claim } = acceptedEntryOf(
    { principal, requestId: input.requestId, ttlHours: deps.config.idempotency.ttlHours },
    { idempotencyKey, event, data },
    input.notifyOnFinish,
  );
  // The event's span: its job's spans in the worker, and its deliveries', are its children.
  return inSpan('event.accept', eventAttributes(queued), () => accept(deps, queued, claim));
}

/**
 * A checked event as it is recorded: a new id, its places in its lines, and the claim of
 * its Idempotency-Key when it has one. The one way a single publish and a batch's event
 * become an accepted entry.
 */
export function acceptedEntryOf(
  caller: { principal: KeyPrincipal; requestId: string; ttlHours: number },
  checked: CheckedCall,
  notifyOnFinish: boolean,
): AcceptedEntry {
  const { idempotencyKey, event, data } = checked;
  const queued: QueuedEvent = {
    id: newEventId(),
    accountId: caller.principal.accountId,
    apiKeyId: caller.principal.apiKeyId,
    event,
    payload: data,
    requestId: caller.requestId,
    orderKeys: orderKeysOf(event, data),
    notifyOnFinish,
  };
  if (idempotencyKey === undefined) return { queued };
  const requestHash = requestHashOf({ event, data });
  return { queued, claim: { key: idempotencyKey, requestHash, ttlHours: caller.ttlHours } };
}

async function accept(
  deps: Deps,
  queued: QueuedEvent,
  claim: IdempotencyClaim | undefined,
): Promise<IngestOutcome> {
  if (claim === undefined) {
    // Written and queued together with the other requests of the moment (group commit).
    const receivedAt = await deps.acceptBatcher.accept(queued);
    countAccepted(deps, queued.event);
    return { accepted: acceptedAnswer(queued.id, queued.event, receivedAt), replayed: false };
  }

  // Claimed and recorded together, in a group commit too; requests with the same key wait
  // on the first.
  const outcome = await deps.acceptBatcher.acceptOnce(queued, claim);
  if ('replayOf' in outcome) {
    const originals = await originalAnswers(deps, [outcome.replayOf]);
    return { accepted: originalOf(originals, outcome.replayOf), replayed: true };
  }
  countAccepted(deps, queued.event);
  return { accepted: acceptedAnswer(queued.id, queued.event, outcome.receivedAt), replayed: false };
}

export interface CheckedCall {
  idempotencyKey: string | undefined;
  event: EventName;
  data: EventData<EventName>;
}

/** The call's parts, each checked; throws the AppError of the first part that is not valid. */
function checkCall(
  schemas: EventSchemas,
  input: IngestInput,
  signed: { webhookId: string } | undefined,
): CheckedCall {
  const idempotencyKey = idempotencyKeyOf(input.idempotencyKey, signed);
  const { event, data } = checkEnvelope(input.body);
  return { idempotencyKey, event, data: checkPayload(schemas, event, data) };
}

/** The id under which a refused call was recorded, when `error` is that refusal. */
export function rejectedEventId(error: unknown): string | undefined {
  const eventId = isAppError(error) ? error.extensions.eventId : undefined;
  return typeof eventId === 'string' ? eventId : undefined;
}

/**
 * Records a call refused as a whole after its key was found (`rejected`), and throws its
 * refusal with the event's id and receipt: one call, one event.
 */
export async function rejectCall(
  deps: Pick<Deps, 'db' | 'metrics' | 'logger'>,
  input: Pick<IngestInput, 'principal' | 'requestId' | 'body'>,
  eventField: unknown,
  error: AppError,
): Promise<never> {
  const id = newEventId();
  const sent = { event: eventField, body: input.body };
  await insertRejected(deps.db.pool, [rejectedRow(id, input, sent, error)]);
  countRejected(deps, input.requestId, [{ eventId: id, code: error.code }]);
  throw new AppError(error.code, error.message, {
    errors: error.errors,
    extensions: { ...error.extensions, eventId: id, instance: receiptPath(id) },
  });
}
