import type { KeyedEvent } from './batch-events.js';
import { IngestError, type IngestErrorDetails } from './errors.js';
import { retryDelayMs, sleep, type RetryPolicy } from './retry.js';
import type { AcceptedEvent, BatchEvent, CallOptions, Schemas } from './types.js';

/** What became of one event of `publishMany`: accepted, or refused with its error. */
export type PublishManyResult =
  | {
      ok: true;
      /** The accepted event: its id is its receipt's. */
      receipt: AcceptedEvent;
      /** The service had this idempotencyKey already: this is the event of that first send. */
      replayed: boolean;
      idempotencyKey: string;
      /** How many sends carried it. */
      attempts: number;
    }
  | {
      ok: false;
      /** Why, as a single publish of it would have failed. */
      error: IngestError;
      /** The rejected event the service recorded for it, when it recorded one. */
      id?: string;
      /** Send it again with this key when the error leaves it unknown whether it was recorded. */
      idempotencyKey: string;
      attempts: number;
    };

type ItemResult = Schemas['BatchItemResult'];
type ItemError = Schemas['BatchItemError'];

/**
 * One call with the events, its whole-call retries (at most `attempts` sends) included.
 * Throws an IngestError when the call failed as a whole.
 */
export type SendBatch = (
  events: BatchEvent[],
  attempts: number,
) => Promise<{ results: ItemResult[]; response: Response; attempts: number }>;

export interface SettleContext extends CallOptions {
  policy: RetryPolicy;
  report: (result: PublishManyResult, index: number) => void;
}

/**
 * Refusals a later send may not get: the rate limit left the event out, its key was
 * being recorded by another call, or the service failed. Any other is final.
 */
const worthRetrying = (error: ItemError): boolean =>
  error.code === 'RATE_LIMITED' || error.code === 'IDEMPOTENCY_KEY_IN_USE' || error.status >= 500;

/**
 * Sends a batch until each of its events has its result, and reports each as it comes.
 * Only the events that need it are sent again, with their keys, after the wait the
 * service asked for (the rate limit's retryAfterSeconds) or the client's back-off. A
 * batch has the client's retry budget: every event still pending has been in the same
 * sends, so one count serves them all.
 */
export async function settleBatch(
  batch: KeyedEvent[],
  send: SendBatch,
  context: SettleContext,
): Promise<void> {
  const { policy, report } = context;
  let pending = batch;
  let sent = 0;
  while (pending.length > 0) {
    let answer: Awaited<ReturnType<SendBatch>>;
    try {
      answer = await send(
        pending.map((item) => item.event),
        policy.attempts - sent,
      );
      if (answer.results.length !== pending.length)
        throw miscounted(answer.results.length, pending.length, answer.attempts);
    } catch (error) {
      if (!(error instanceof IngestError)) throw error;
      sent += error.attempts;
      const failed = new IngestError({ ...detailsOf(error), attempts: sent }, { cause: error });
      for (const item of pending) report(failure(item, failed, sent), item.index);
      return;
    }
    sent += answer.attempts;
    const requestId = answer.response.headers.get('x-request-id') ?? undefined;
    const again: KeyedEvent[] = [];
    let waitMs: number | undefined;
    for (const [place, item] of pending.entries()) {
      const result = answer.results[place];
      if (result === undefined) continue; // counted above
      if (!('error' in result)) {
        report(accepted(item, result, sent), item.index);
      } else if (worthRetrying(result.error) && sent < policy.attempts) {
        again.push(item);
        const askedMs = (result.error.retryAfterSeconds ?? 0) * 1000;
        if (result.error.retryAfterSeconds !== undefined) waitMs = Math.max(waitMs ?? 0, askedMs);
      } else {
        const error = new IngestError({
          ...result.error,
          ...(requestId === undefined ? {} : { requestId }),
          attempts: sent,
        });
        report(failure(item, error, sent, result.id), item.index);
      }
    }
    if (again.length === 0) return;
    const delayMs = retryDelayMs(policy, sent, waitMs);
    context.onRetry?.({
      attempt: sent,
      delayMs,
      reason: `${again.length} of ${pending.length} events to send again`,
    });
    await sleep(delayMs, context.signal);
    pending = again;
  }
}

const detailsOf = (error: IngestError): IngestErrorDetails => ({
  status: error.status,
  code: error.code,
  message: error.message,
  errors: error.errors,
  ...(error.requestId === undefined ? {} : { requestId: error.requestId }),
});

const accepted = (
  item: KeyedEvent,
  { replayed, ...receipt }: Extract<ItemResult, { status: 'queued' }>,
  attempts: number,
): PublishManyResult => ({
  ok: true,
  receipt,
  replayed: replayed === true,
  idempotencyKey: item.event.idempotencyKey,
  attempts,
});

const failure = (
  item: KeyedEvent,
  error: IngestError,
  attempts: number,
  id?: string,
): PublishManyResult => ({
  ok: false,
  error,
  ...(id === undefined ? {} : { id }),
  idempotencyKey: item.event.idempotencyKey,
  attempts,
});

/** The service answers one result per event; an answer that does not is not read. */
const miscounted = (answered: number, sent: number, attempts: number) =>
  new IngestError({
    status: 200,
    code: 'HTTP_ERROR',
    message: `The service answered ${answered} results for ${sent} events`,
    attempts,
  });
