import { AppError, isAppError, type EventSchemas, type FieldProblem } from '@ingest/contracts';
import type { AcceptedEntry } from '@ingest/event-log';
import { requireScope, type KeyPrincipal } from '../access/principal.js';
import { checkEnvelope, checkPayload, scopesToPublish } from './envelope.js';
import { IDEMPOTENCY_KEY_FORMAT, isIdempotencyKey } from './idempotency.js';
import { acceptedEntryOf } from './ingest-event.js';

/**
 * What becomes of one item of a batch: accepted (to be recorded and queued), refused (to
 * be recorded as rejected), left out by the account's rate limit (not recorded, like a
 * single publish refused there), or the same as an earlier item of the call (its
 * idempotencyKey again, with the same event).
 */
export type ItemPlan =
  | { accept: AcceptedEntry; item: unknown }
  | { refuse: AppError; item: unknown }
  | { limited: true }
  | { sameAs: number };

export interface BatchCaller {
  principal: KeyPrincipal;
  requestId: string;
  ttlHours: number;
}

const BATCH_FIELDS = new Set(['events']);

const invalidBatch = (errors: FieldProblem[], maxEvents: number) =>
  new AppError(
    'VALIDATION_FAILED',
    `The batch must be { "events": [...] } with 1 to ${maxEvents} events`,
    { errors },
  );

/** The batch's items, or 400 VALIDATION_FAILED for a body that is not a batch at all. */
export function itemsOfBatch(body: unknown, maxEvents: number): unknown[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidBatch(
      [{ path: '', message: 'must be an object: { "events": [...] }' }],
      maxEvents,
    );
  }
  const batch = body as Record<string, unknown>;
  const problems: FieldProblem[] = Object.keys(batch)
    .filter((key) => !BATCH_FIELDS.has(key))
    .map((key) => ({ path: key, message: 'is not a field of a batch (only events is)' }));
  const { events } = batch;
  if (!Array.isArray(events)) {
    problems.push({ path: 'events', message: 'must be an array of events' });
  } else if (events.length === 0 || events.length > maxEvents) {
    problems.push({ path: 'events', message: `must hold 1 to ${maxEvents} events` });
  }
  if (problems.length > 0 || !Array.isArray(events)) throw invalidBatch(problems, maxEvents);
  return events;
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
 * One item through the single publish's checks, in its order: scope, idempotency key,
 * envelope, payload. An item without an idempotencyKey in a signed call gets one from the
 * call's webhook-id and its place, so that the signed call sent again is the same events
 * again, as a signed single publish is.
 */
export function planItem(
  schemas: EventSchemas,
  caller: BatchCaller,
  signed: { webhookId: string } | undefined,
  item: unknown,
  index: number,
): ItemPlan {
  try {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new AppError('VALIDATION_FAILED', 'The event is not an object', {
        errors: [{ path: '', message: 'must be an object: { "event": ..., "data": {...} }' }],
      });
    }
    const { idempotencyKey: sentKey, ...envelope } = item as Record<string, unknown>;
    const scopes = scopesToPublish(envelope.event);
    requireScope(caller.principal, scopes, scopes.join(' or '));
    const key = sentKey === undefined && signed ? keyFromCall(signed.webhookId, index) : sentKey;
    if (key !== undefined && (typeof key !== 'string' || !isIdempotencyKey(key))) {
      throw new AppError('VALIDATION_FAILED', 'The idempotencyKey is malformed', {
        errors: [{ path: 'idempotencyKey', message: `must be ${IDEMPOTENCY_KEY_FORMAT}` }],
      });
    }
    const { event, data: sentData } = checkEnvelope(envelope);
    const data = checkPayload(schemas, event, sentData);
    return { accept: acceptedEntryOf(caller, { idempotencyKey: key, event, data }, false), item };
  } catch (error) {
    if (isAppError(error)) return { refuse: error, item };
    throw error;
  }
}

/**
 * The key of an unkeyed item of a signed call. Refused with what to change when it would
 * not be a key (a webhook-id near 255 characters, say): the item's idempotencyKey, which
 * the caller never sent, would be the wrong field to name.
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
 * The later items of a call that repeat an earlier item's idempotencyKey: the same event
 * again answers as the first, another is refused (IDEMPOTENCY_KEY_MISMATCH), as a second
 * call would be. Only the first of each key goes to the database.
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
      item: plan.item,
    };
  });
}
