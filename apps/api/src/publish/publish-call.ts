import { AppError, isAppError, receiptPath, type AcceptedEvent } from '@ingest/contracts';
import type { AcceptedEntry, Recorded, RejectedEvent } from '@ingest/event-log';
import { eventAttributes, inSpan } from '@ingest/observability';
import type { KeyPrincipal } from '../access/principal.js';
import type { ApiDeps } from '../deps.js';
import {
  acceptedAnswer,
  countAccepted,
  countRejected,
  originalAnswers,
  originalOf,
  rejectedRow,
} from './answers.js';
import {
  foldRepeatedKeys,
  itemOfEvent,
  itemsOfBatch,
  planItem,
  type ItemPlan,
  type SentItem,
} from './call-items.js';
import { verifyCallSignature, type SignedCall } from './request-signature.js';

type Deps = Pick<ApiDeps, 'db' | 'config' | 'logger' | 'recorder' | 'counters' | 'metrics'>;

/** A call to POST /api/webhooks/content (one event) or /batch (its events), its key known. */
export interface Call {
  principal: KeyPrincipal;
  requestId: string;
  /** The call's signature headers, its body's bytes and the key's signing secrets. */
  signature: SignedCall;
  body: unknown;
  batch: boolean;
  /** The `Idempotency-Key` header as received. */
  idempotencyKeyHeader: string | string[] | undefined;
  /** The caller waits for the outcome (`Prefer: wait`): the worker should announce it. */
  notifyOnFinish: boolean;
  /** The account's rate limit lets this many events through, from the first. */
  granted: number;
  /** When the events it left out may be sent again. */
  retryAfterSeconds: number;
}

/** What became of one event of a call: accepted (or found by its key), or refused. */
export type Answer =
  { accepted: AcceptedEvent; replayed: boolean } | { refused: AppError; id?: string };

/**
 * The publish path, one call at a time, in the specification's order: the call's signature
 * and shape (checkCall), then each event on its own: scope, validation, a WebhookLog row
 * (`queued`, or `rejected` with its error) and its job. A single publish is a call of one
 * event. Accepted events are recorded together, in the call's order, before any answer.
 */
export async function publishCall(deps: Deps, call: Call): Promise<Answer[]> {
  const items = await checkCall(deps, call);
  const caller = { ...call, ttlHours: deps.config.idempotency.ttlHours };
  const plans = foldRepeatedKeys(
    items.map((sent, index) =>
      index < call.granted ? planItem(deps.config.content, caller, sent) : { limited: true },
    ),
  );
  const refusals = new Map<ItemPlan, RejectedEvent>();
  const rejected: Array<{ eventId: string; code: string }> = [];
  for (const plan of plans) {
    if (!('refuse' in plan)) continue;
    const row = rejectedRow(call, plan.sent.envelope, plan.refuse);
    refusals.set(plan, row);
    rejected.push({ eventId: row.id, code: plan.refuse.code });
  }
  const accepted = plans.flatMap((plan) => ('accept' in plan ? [plan.accept] : []));
  const recorded = await record(deps, call, accepted, [...refusals.values()]);
  const originals = await originalAnswers(
    deps,
    recorded.flatMap((outcome) => ('replayOf' in outcome ? [outcome.replayOf] : [])),
  );

  // A batch's event refused by its key is recorded as rejected, like its other refusals.
  const keyRefusals: RejectedEvent[] = [];
  const answers: Answer[] = [];
  let next = 0;
  for (const plan of plans) {
    if ('limited' in plan) answers.push({ refused: rateLimited(call.retryAfterSeconds) });
    else if ('refuse' in plan) answers.push({ refused: plan.refuse, id: refusals.get(plan)?.id });
    else if ('sameAs' in plan) answers.push(repeated(answers[plan.sameAs]));
    else {
      const outcome = recorded[next++];
      if (outcome === undefined) throw new Error('an accepted event has no outcome');
      const answer = answerOf(plan.accept, outcome, originals);
      if ('refused' in answer && call.batch) {
        const row = rejectedRow(call, plan.sent.envelope, answer.refused);
        keyRefusals.push(row);
        rejected.push({ eventId: row.id, code: answer.refused.code });
        answer.id = row.id;
      }
      answers.push(answer);
    }
  }
  if (keyRefusals.length > 0) await deps.recorder.record({ accepted: [], rejected: keyRefusals });
  countRejected(deps, call, rejected);
  return answers;
}

/**
 * The call's events, once its signature and shape pass. A call refused there is recorded
 * as one rejected event, and its refusal thrown with that event's id and receipt.
 */
async function checkCall(deps: Deps, call: Call): Promise<SentItem[]> {
  try {
    const signed = verifyCallSignature(call.signature);
    return call.batch
      ? itemsOfBatch(
          call.body,
          deps.config.limits.batchMaxEvents,
          call.idempotencyKeyHeader,
          signed,
        )
      : [itemOfEvent(call.body, call.idempotencyKeyHeader, signed)];
  } catch (error) {
    if (!isAppError(error)) throw error;
    const row = rejectedRow(call, call.body, error, call.batch ? null : undefined);
    await deps.recorder.record({ accepted: [], rejected: [row] });
    countRejected(deps, call, [{ eventId: row.id, code: error.code }]);
    throw withReceipt(error, row.id);
  }
}

/** Records the call's events; the accepted ones in the event's span, or the batch's. */
async function record(
  deps: Deps,
  call: Call,
  accepted: AcceptedEntry[],
  rejected: RejectedEvent[],
): Promise<Recorded[]> {
  const [first] = accepted;
  if (first === undefined) {
    if (rejected.length > 0) await deps.recorder.record({ accepted, rejected });
    return [];
  }
  // The span the events' jobs, and their deliveries, are the children of.
  const [name, attributes] = call.batch
    ? [
        'event.accept_batch',
        { 'ingest.account.id': call.principal.accountId, 'ingest.batch.events': accepted.length },
      ]
    : ['event.accept', eventAttributes(first.queued)];
  const recorded = await inSpan(name, attributes, () =>
    deps.recorder.record({ accepted, rejected }),
  );
  recorded.forEach((outcome, index) => {
    const queued = accepted[index]?.queued;
    if ('receivedAt' in outcome && queued !== undefined) countAccepted(deps, queued);
  });
  return recorded;
}

function answerOf(
  entry: AcceptedEntry,
  outcome: Recorded,
  originals: Map<string, AcceptedEvent>,
): Answer {
  const { queued } = entry;
  if ('receivedAt' in outcome) {
    return {
      accepted: acceptedAnswer(queued.id, queued.event, outcome.receivedAt),
      replayed: false,
    };
  }
  if ('refused' in outcome) return { refused: outcome.refused };
  return { accepted: originalOf(originals, outcome.replayOf), replayed: true };
}

/** An event that repeats an earlier one's key and event answers as that one did. */
function repeated(first: Answer | undefined): Answer {
  if (first === undefined) throw new Error('an event repeats one not yet answered');
  return 'refused' in first ? first : { accepted: first.accepted, replayed: true };
}

const rateLimited = (retryAfterSeconds: number) =>
  new AppError(
    'RATE_LIMITED',
    `This account's rate limit left this event out; send it again in ${retryAfterSeconds} s`,
    { extensions: { retryAfterSeconds } },
  );

/** A refusal as the problem of a call: with the id and receipt of the event recorded for it. */
export const withReceipt = (error: AppError, eventId: string | undefined): AppError =>
  eventId === undefined
    ? error
    : new AppError(error.code, error.message, {
        errors: error.errors,
        headers: error.headers,
        extensions: { ...error.extensions, eventId, instance: receiptPath(eventId) },
      });

/** The id of the event a refused call was recorded as (see withReceipt); null if none. */
export function rejectedEventId(error: unknown): string | null {
  const eventId = isAppError(error) ? error.extensions.eventId : undefined;
  return typeof eventId === 'string' ? eventId : null;
}
