import { AppError, isAppError, type ContentLimits, type FieldProblem } from '@ingest/contracts';
import { newEventId, type AcceptedEntry } from '@ingest/event-log';
import { orderKeysOf, scopesToPublish } from '@ingest/events';
import { requireScope, type KeyPrincipal } from '../access/principal.js';
import { checkEnvelope, checkPayload } from './envelope.js';
import { IDEMPOTENCY_KEY_FORMAT, isIdempotencyKey, requestHashOf } from './idempotency.js';
import { idempotencyKeyOf } from './request-signature.js';

/** One event of a call as sent: what is checked (and recorded if refused), and its key. */
export interface SentItem {
  /** `{ event, data }` as sent: a single publish's body, a batch item without its key. */
  envelope: unknown;
  /** Its Idempotency-Key, if any; throws the AppError of a malformed one. */
  key: () => string | undefined;
  /** Refused before any check: a batch item that is not an object. */
  refusal?: AppError;
}

/**
 * What becomes of one event of a call: accepted (to be recorded and queued), refused (to
 * be recorded as rejected), left out by the account's rate limit (not recorded), or the
 * same as an earlier event of the call (its key again, with the same event).
 */
export type ItemPlan =
  | { accept: AcceptedEntry; sent: SentItem }
  | { refuse: AppError; sent: SentItem }
  | { limited: true }
  | { sameAs: number };

export interface Caller {
  principal: KeyPrincipal;
  /** A batch records every event it refuses; a single publish, not one refused by scope. */
  batch: boolean;
  requestId: string;
  ttlHours: number;
  /** The caller waits for the outcome (`Prefer: wait`): the worker should announce it. */
  notifyOnFinish: boolean;
}

/** The one event of a single publish: its body, keyed by its Idempotency-Key header. */
export const itemOfEvent = (
  body: unknown,
  header: string | string[] | undefined,
  signed: { webhookId: string } | undefined,
): SentItem => ({ envelope: body, key: () => idempotencyKeyOf(header, signed) });

const BATCH_FIELDS = new Set(['events']);

const invalidBatch = (errors: FieldProblem[], maxEvents: number) =>
  new AppError(
    'VALIDATION_FAILED',
    `The batch must be { "events": [...] } with 1 to ${maxEvents} events`,
    { errors },
  );

/**
 * The events of a batch, each keyed by its idempotencyKey or, in a signed call, by the
 * call's webhook-id and its place, so that the signed call sent again is the same events
 * again. 400 VALIDATION_FAILED for a body that is not a batch, or a batch sent with an
 * Idempotency-Key header (its keys are its events').
 */
export function itemsOfBatch(
  body: unknown,
  maxEvents: number,
  header: string | string[] | undefined,
  signed: { webhookId: string } | undefined,
): SentItem[] {
  if (header !== undefined) {
    throw new AppError('VALIDATION_FAILED', 'A batch takes no Idempotency-Key header', {
      errors: [
        {
          path: 'headers.idempotency-key',
          message: 'give each event its own idempotencyKey instead',
        },
      ],
    });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidBatch(
      [{ path: '', message: 'must be an object: { "events": [...] }' }],
      maxEvents,
    );
  }
  const problems: FieldProblem[] = Object.keys(body)
    .filter((key) => !BATCH_FIELDS.has(key))
    .map((key) => ({ path: key, message: 'is not a field of a batch (only events is)' }));
  const events: unknown = Reflect.get(body, 'events');
  if (!Array.isArray(events)) {
    problems.push({ path: 'events', message: 'must be an array of events' });
  } else if (events.length === 0 || events.length > maxEvents) {
    problems.push({ path: 'events', message: `must hold 1 to ${maxEvents} events` });
  }
  if (problems.length > 0 || !Array.isArray(events)) throw invalidBatch(problems, maxEvents);
  return events.map((item: unknown, index) => batchItem(item, index, signed));
}

function batchItem(
  item: unknown,
  index: number,
  signed: { webhookId: string } | undefined,
): SentItem {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    const refusal = new AppError('VALIDATION_FAILED', 'The event is not an object', {
      errors: [{ path: '', message: 'must be an object: { "event": ..., "data": {...} }' }],
    });
    return { envelope: item, key: () => undefined, refusal };
  }
  const { idempotencyKey: sent, ...envelope } = item as Record<string, unknown>;
  return {
    envelope,
    key() {
      if (sent === undefined) return signed ? keyFromCall(signed.webhookId, index) : undefined;
      if (typeof sent === 'string' && isIdempotencyKey(sent)) return sent;
      throw new AppError('VALIDATION_FAILED', 'The idempotencyKey is malformed', {
        errors: [{ path: 'idempotencyKey', message: `must be ${IDEMPOTENCY_KEY_FORMAT}` }],
      });
    },
  };
}

/** How many events a batch body carries, for the rate limit: 1 when it is not a batch. */
export function eventCountOf(body: unknown, maxEvents: number): number {
  const events: unknown =
    typeof body === 'object' && body !== null ? Reflect.get(body, 'events') : null;
  return Array.isArray(events) && events.length >= 1 && events.length <= maxEvents
    ? events.length
    : 1;
}

/**
 * One event through the checks, in the specification's order: scope, Idempotency-Key,
 * envelope, payload. Accepted, it becomes an entry of the event log: a new id, its places
 * in its lines, and the claim of its key when it has one.
 */
export function planItem(limits: ContentLimits, caller: Caller, sent: SentItem): ItemPlan {
  // A single publish refused by its scope is answered unrecorded: the key may not publish.
  if (!caller.batch) requireScopeFor(caller.principal, sent.envelope);
  try {
    if (sent.refusal !== undefined) throw sent.refusal;
    if (caller.batch) requireScopeFor(caller.principal, sent.envelope);
    const key = sent.key();
    const envelope = checkEnvelope(sent.envelope);
    const data = checkPayload(limits, envelope.event, envelope.data);
    const queued = {
      id: newEventId(),
      accountId: caller.principal.accountId,
      apiKeyId: caller.principal.apiKeyId,
      event: envelope.event,
      payload: data,
      requestId: caller.requestId,
      orderKeys: orderKeysOf(envelope.event, data),
      notifyOnFinish: caller.notifyOnFinish,
    };
    if (key === undefined) return { accept: { queued }, sent };
    const requestHash = requestHashOf({ event: envelope.event, data });
    const claim = { key, requestHash, ttlHours: caller.ttlHours };
    return { accept: { queued, claim }, sent };
  } catch (error) {
    if (isAppError(error)) return { refuse: error, sent };
    throw error;
  }
}

/**
 * The key of an unkeyed event of a signed batch. Refused with what to change when it
 * would not be a key (a webhook-id near 255 characters, say): the event's idempotencyKey,
 * which the caller never sent, would be the wrong field to name.
 */
function keyFromCall(webhookId: string, index: number): string {
  const key = `${webhookId}:${index}`;
  if (isIdempotencyKey(key)) return key;
  throw new AppError('VALIDATION_FAILED', "The call's webhook-id cannot key this event", {
    errors: [
      {
        path: 'headers.webhook-id',
        message: `keys an event without an idempotencyKey as "<webhook-id>:${index}", which must be ${IDEMPOTENCY_KEY_FORMAT}: send a shorter webhook-id, or give the event an idempotencyKey`,
      },
    ],
  });
}

/**
 * The later events of a call that repeat an earlier one's key: the same event again
 * answers as the first, another is refused (IDEMPOTENCY_KEY_MISMATCH), as a second call
 * would be. Only the first of each key goes to the database.
 */
export function foldRepeatedKeys(plans: ItemPlan[]): ItemPlan[] {
  const firsts = new Map<string, number>();
  return plans.map((plan, index) => {
    if (!('accept' in plan) || plan.accept.claim === undefined) return plan;
    const { claim } = plan.accept;
    const first = firsts.get(claim.key);
    if (first === undefined) {
      firsts.set(claim.key, index);
      return plan;
    }
    const firstClaim = (plans[first] as { accept: AcceptedEntry }).accept.claim;
    if (firstClaim && Buffer.from(firstClaim.requestHash).equals(Buffer.from(claim.requestHash))) {
      return { sameAs: first };
    }
    return {
      refuse: new AppError(
        'IDEMPOTENCY_KEY_MISMATCH',
        'This idempotencyKey was already used with a different event; use a new key for a new event',
      ),
      sent: plan.sent,
    };
  });
}

function requireScopeFor(principal: KeyPrincipal, envelope: unknown): void {
  const event: unknown =
    typeof envelope === 'object' && envelope !== null ? Reflect.get(envelope, 'event') : undefined;
  const scopes = scopesToPublish(event);
  requireScope(principal, scopes, scopes.join(' or '));
}
