import type { BatchEvent } from './types.js';

/** An event on its way: its idempotencyKey given, its place in the input, its JSON size. */
export interface KeyedEvent {
  index: number;
  event: BatchEvent & { idempotencyKey: string };
  bytes: number;
}

export interface BatchLimits {
  events: number;
  bytes: number;
}

const utf8 = new TextEncoder();
/** `{"events":[` and `]}` around the events. */
const ENVELOPE_BYTES = utf8.encode('{"events":[]}').byteLength;

/**
 * Each event with an idempotencyKey: its own, else a new random one as `publish` gives
 * each call, kept for every send of the event, so that no retry records it twice.
 */
export async function* keyedEvents(
  source: Iterable<BatchEvent> | AsyncIterable<BatchEvent>,
): AsyncGenerator<KeyedEvent> {
  let index = 0;
  for await (const given of source) {
    const event = { ...given, idempotencyKey: given.idempotencyKey ?? crypto.randomUUID() };
    yield { index, event, bytes: utf8.encode(JSON.stringify(event)).byteLength };
    index += 1;
  }
}

/**
 * The events in batches of at most `limits.events`, whose body stays within
 * `limits.bytes`, in their order. An event too large for the budget on its own goes
 * alone: the service answers it 413, which is then its result.
 */
export async function* batchesOf(
  events: AsyncIterable<KeyedEvent>,
  limits: BatchLimits,
): AsyncGenerator<KeyedEvent[]> {
  let batch: KeyedEvent[] = [];
  let bytes = ENVELOPE_BYTES;
  for await (const event of events) {
    // One comma before each event but the first.
    if (batch.length > 0 && bytes + 1 + event.bytes > limits.bytes) {
      yield batch;
      batch = [];
      bytes = ENVELOPE_BYTES;
    }
    bytes += (batch.length > 0 ? 1 : 0) + event.bytes;
    batch.push(event);
    if (batch.length >= limits.events) {
      yield batch;
      batch = [];
      bytes = ENVELOPE_BYTES;
    }
  }
  if (batch.length > 0) yield batch;
}
