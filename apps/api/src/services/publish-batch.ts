import {
  AppError,
  isAppError,
  type AcceptedEvent,
  type BatchItemError,
  type BatchItemResult,
  type EventSchemas,
} from '@ingest/contracts';
import {
  insertRejected,
  newEventId,
  recordAcceptedCall,
  type AcceptedEntry,
  type CallOutcome,
  type RejectedEvent,
} from '@ingest/event-log';
import { inSpan } from '@ingest/observability';
import { context } from '@opentelemetry/api';
import type { KeyPrincipal } from '../access/principal.js';
import type { ApiDeps } from '../deps.js';
import { foldRepeatedKeys, itemsOfBatch, planItem, type ItemPlan } from './batch-items.js';
import { enqueueOrLeaveToReconciler } from './enqueue-accepted.js';
import {
  acceptedAnswer,
  countAccepted,
  countRejected,
  originalAnswers,
  originalOf,
  rejectedRow,
} from './event-answers.js';
import { rejectCall } from './ingest-event.js';
import { verifyCallSignature, type SignedCall } from './request-signature.js';

type Deps = Pick<
  ApiDeps,
  'db' | 'queues' | 'config' | 'logger' | 'acceptedCounter' | 'metrics' | 'shares'
>;

export interface BatchInput {
  principal: KeyPrincipal;
  signature: SignedCall;
  body: unknown;
  requestId: string;
  /** An `Idempotency-Key` header: refused, since a batch's keys are its items'. */
  idempotencyKeyHeader: string | string[] | undefined;
  /** The account's rate limit lets this many events through, from the first. */
  granted: number;
  /** When the others may be sent again. */
  retryAfterSeconds: number;
}

/**
 * POST /api/webhooks/content/batch after the key was found. The call is checked once: its
 * signature (the rest of key validation) and its shape; a call refused there is one
 * rejected event, as a single publish is. Then each item goes through the single
 * publish's flow on its own: scope, validation, an event-log row (`queued`, or `rejected`
 * with its error), and the accepted ones' jobs. The accepted items are recorded in one
 * transaction in the call's order, which is their order in their lines.
 */
export async function publishBatch(
  deps: Deps,
  schemas: EventSchemas,
  input: BatchInput,
): Promise<BatchItemResult[]> {
  let items: unknown[];
  let signed: { webhookId: string } | undefined;
  try {
    signed = verifyCallSignature(input.signature);
    if (input.idempotencyKeyHeader !== undefined) throw keyHeaderRefused();
    items = itemsOfBatch(input.body, deps.config.limits.batchMaxEvents);
  } catch (error) {
    if (isAppError(error)) await rejectCall(deps, input, undefined, error);
    throw error;
  }

  const caller = { ...input, ttlHours: deps.config.idempotency.ttlHours };
  const plans = foldRepeatedKeys(
    items.map((item, index) =>
      index < input.granted ? planItem(schemas, caller, signed, item, index) : { limited: true },
    ),
  );
  const accepting = plans.flatMap((plan) => ('accept' in plan ? [plan.accept] : []));
  const outcomes = await recordAndQueue(deps, input.principal, accepting);

  // What the database said of each accepted item, in the plans' order.
  const outcomeOf = new Map<ItemPlan, CallOutcome>();
  let next = 0;
  for (const plan of plans) {
    if ('accept' in plan) outcomeOf.set(plan, outcomes[next++] as CallOutcome);
  }
  const originals = await originalAnswers(
    deps,
    outcomes.flatMap((outcome) => ('replayOf' in outcome ? [outcome.replayOf] : [])),
  );

  const rejected: Array<{ row: RejectedEvent; error: AppError }> = [];
  const results: BatchItemResult[] = [];
  const refuse = (error: AppError, item: unknown): BatchItemResult => {
    const id = newEventId();
    const sent = sentEvent(item);
    rejected.push({ row: rejectedRow(id, input, sent, error), error });
    return { id, error: itemError(error) };
  };
  for (const plan of plans) {
    if ('limited' in plan) results.push({ error: rateLimited(input.retryAfterSeconds) });
    else if ('refuse' in plan) results.push(refuse(plan.refuse, plan.item));
    else if ('sameAs' in plan) results.push(repeated(results[plan.sameAs]));
    else results.push(answerOf(plan, outcomeOf.get(plan), originals, refuse));
  }

  await insertRejected(
    deps.db.pool,
    rejected.map(({ row }) => row),
  );
  countRejected(
    deps,
    input.requestId,
    rejected.map(({ row, error }) => ({ eventId: row.id, code: error.code })),
  );
  return results;
}

/** Records the call's accepted items in one transaction, then queues the ones recorded. */
async function recordAndQueue(
  deps: Deps,
  principal: KeyPrincipal,
  entries: AcceptedEntry[],
): Promise<CallOutcome[]> {
  if (entries.length === 0) return [];
  const attributes = {
    'ingest.account.id': principal.accountId,
    'ingest.batch.events': entries.length,
  };
  // The batch's span: each event's job, and its deliveries, are its children.
  return inSpan('event.accept_batch', attributes, async () => {
    const outcomes = await recordAcceptedCall(deps.db.pool, entries);
    const recorded = entries.filter((_, i) => outcomes[i] && 'receivedAt' in outcomes[i]);
    const trace = context.active();
    await enqueueOrLeaveToReconciler(
      deps,
      recorded.map((entry) => ({ ...entry.queued, trace })),
    );
    recorded.forEach((entry) => countAccepted(deps, entry.queued.event));
    return outcomes;
  });
}

function answerOf(
  plan: { accept: AcceptedEntry; item: unknown },
  outcome: CallOutcome | undefined,
  originals: Map<string, AcceptedEvent>,
  refuse: (error: AppError, item: unknown) => BatchItemResult,
): BatchItemResult {
  const { queued } = plan.accept;
  if (outcome === undefined) throw new Error(`no outcome for event ${queued.id}`);
  if ('receivedAt' in outcome) return acceptedAnswer(queued.id, queued.event, outcome.receivedAt);
  if ('refused' in outcome) return refuse(outcome.refused, plan.item);
  return { ...originalOf(originals, outcome.replayOf), replayed: true };
}

/**
 * A refused item as its row records it: what a single publish of it would have sent, so
 * without its idempotencyKey (a single publish's key is a header, not in its body).
 */
function sentEvent(item: unknown): { event: unknown; body: unknown } {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return { event: null, body: item };
  }
  const { idempotencyKey: _key, ...body } = item as Record<string, unknown>;
  return { event: body.event, body };
}

/** An item that repeats an earlier one's key and event answers as that one did. */
function repeated(first: BatchItemResult | undefined): BatchItemResult {
  if (first === undefined) throw new Error('an item repeats one not yet answered');
  return 'error' in first ? first : { ...first, replayed: true };
}

const itemError = (error: AppError): BatchItemError => ({
  status: error.status,
  code: error.code,
  message: error.message,
  ...(error.errors ? { errors: error.errors } : {}),
});

const rateLimited = (retryAfterSeconds: number): BatchItemError => ({
  status: 429,
  code: 'RATE_LIMITED',
  message: `This account's rate limit left this event out; send it again in ${retryAfterSeconds} s`,
  retryAfterSeconds,
});

const keyHeaderRefused = () =>
  new AppError('VALIDATION_FAILED', 'A batch takes no Idempotency-Key header', {
    errors: [
      {
        path: 'headers.idempotency-key',
        message: 'give each event its own idempotencyKey instead',
      },
    ],
  });
