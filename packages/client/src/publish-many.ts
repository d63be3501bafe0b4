import { batchesOf, keyedEvents } from './batch-events.js';
import type { Caller } from './caller.js';
import { settleBatch, type PublishManyResult, type SendBatch } from './settle-batch.js';
import type { BatchEvent, CallOptions } from './types.js';

export interface PublishManyOptions extends CallOptions {
  /** Events a call carries at most (default 100; the service takes up to its CONTENT_BATCH_MAX_EVENTS, 1,000 by default). */
  batchSize?: number;
  /** Bytes of JSON a call carries at most (default 1,000,000: under the service's 1 MiB default). */
  maxBatchBytes?: number;
  /**
   * Calls in flight (default 1). A batch is recorded in its order, and with one call at a
   * time in the order given; batches in flight together are recorded in any order between
   * them, so raise it for events whose order across batches does not matter.
   */
  concurrency?: number;
  /** A call not answered within this long is sent again, as a network error is (default 30 s). */
  timeoutMs?: number;
}

export const DEFAULT_BATCH_SIZE = 100;
const DEFAULT_BATCH_BYTES = 1_000_000;
const DEFAULT_TIMEOUT_MS = 30_000;

const atLeastOne = (name: string, value: number): number => {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive whole number`);
  return value;
};

/**
 * The events of `source`, in batches through POST /api/webhooks/content/batch, each
 * event's result told to `report` as it is answered. Batches are taken from the source as
 * calls are free to carry them, so a source of millions is never held whole.
 */
export async function publishEvents(
  caller: Caller,
  source: Iterable<BatchEvent> | AsyncIterable<BatchEvent>,
  options: PublishManyOptions,
  report: (result: PublishManyResult, index: number) => void,
): Promise<void> {
  // Refused at once without a key, rather than once per event.
  const headers = caller.apiKey();
  const send: SendBatch = async (events, attempts) => {
    const answer = await caller.call(
      (fetch) =>
        caller.http.POST('/api/webhooks/content/batch', { headers, body: { events }, fetch }),
      'idempotent',
      {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
        attempts,
        signingSecret: caller.options.signingSecret,
        timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      },
    );
    return { results: answer.data.results, response: answer.response, attempts: answer.attempts };
  };
  const batches = batchesOf(keyedEvents(source), {
    events: atLeastOne('batchSize', options.batchSize ?? DEFAULT_BATCH_SIZE),
    bytes: atLeastOne('maxBatchBytes', options.maxBatchBytes ?? DEFAULT_BATCH_BYTES),
  });
  const context = { ...options, policy: caller.retry, report };
  let failed = false;
  // Each call takes the next batch as it finishes one; an async generator hands its
  // values out one at a time, in order, to whoever asks.
  const sender = async () => {
    while (!failed) {
      const next = await batches.next();
      if (next.done === true) return;
      await settleBatch(next.value, send, context).catch((error: unknown) => {
        failed = true;
        throw error;
      });
    }
  };
  try {
    const concurrency = atLeastOne('concurrency', options.concurrency ?? 1);
    // Settled, not raced: once this returns, no call of it reports a result any more.
    const senders = await Promise.allSettled(Array.from({ length: concurrency }, sender));
    const rejected = senders.find((sent) => sent.status === 'rejected');
    if (rejected !== undefined) throw rejected.reason;
  } finally {
    await batches.return(undefined);
  }
}
