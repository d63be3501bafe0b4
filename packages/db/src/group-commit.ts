import { context, type Context } from '@opentelemetry/api';
import { inBatchSpan } from './batch-span.js';
import { fifo, type Waiting } from './waiting.js';

/** One item handed to a group commit, with the settling of its caller's promise. */
export interface Submitted<Item, Result> {
  item: Item;
  // Properties, not methods: they are the promise's own callbacks, free of `this`.
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
  /** The trace context its caller submitted it in: what the write does for it belongs there. */
  context: Context;
}

export interface GroupCommitOptions<Item, Result> {
  /** Batches written at once; while that many are, new items gather into the next one. */
  maxInFlight: number;
  /** Items in one batch at most, counted by `sizeOf` (1 each by default); an item larger goes alone. */
  maxBatch: number;
  sizeOf?: (item: Item) => number;
  /** Writes one batch and settles each of its items. */
  write: (batch: Array<Submitted<Item, Result>>) => Promise<void>;
  /**
   * Where items wait and how a batch is taken: first come first batched, by `sizeOf`, by
   * default; lanes (@ingest/fairness) take batches in turns by account, an item counting 1.
   */
  waiting?: Waiting<Submitted<Item, Result>>;
  /**
   * With a `waiting` that tells small groups apart (takeSmall): one write beyond
   * `maxInFlight` for groups with at most this many items waiting, whole, so that a quiet
   * account's items start at once while busy ones fill every other write.
   */
  expressItems?: number;
  /** With tracing on, each write runs in a span of this name, linked to its items' (batch-span.ts). */
  spanName?: string;
}

export interface GroupCommit<Item, Result> {
  /** Resolves or rejects as `write` settles this item. */
  submit(item: Item): Promise<Result>;
  /** Resolves once every item submitted so far is settled (for shutdown). */
  drain(): Promise<void>;
}

/**
 * Group commit: callers that arrive together share one write (one transaction, one
 * commit, one round trip per statement) and each is still answered only when its own
 * item is settled.
 *
 * Batches form by themselves: a write starts on the next turn of the event loop, and at
 * most `maxInFlight` run at once, so while they are busy the next items gather into the
 * next batch. At low load every item goes alone, at once; under load batches grow. Hand-
 * written rather than DataLoader because that limit on writes in flight is what makes
 * batches grow with load, and DataLoader dispatches every tick.
 */
export function createGroupCommit<Item, Result>(
  options: GroupCommitOptions<Item, Result>,
): GroupCommit<Item, Result> {
  const { maxInFlight, maxBatch, write, expressItems = 0, spanName } = options;
  const sizeOf = options.sizeOf ?? (() => 1);
  const pending =
    options.waiting ?? fifo<Submitted<Item, Result>>((submitted) => sizeOf(submitted.item));
  let inFlight = 0;
  let expressInFlight = false;
  let scheduled = false;
  const idle: Array<() => void> = [];

  const expressFree = () => expressItems > 0 && !expressInFlight;

  function schedule() {
    if (scheduled || pending.size === 0) return;
    if (inFlight >= maxInFlight && !expressFree()) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (pending.size > 0 && inFlight < maxInFlight) void flush(pending.take(maxBatch));
      if (pending.size > 0 && expressFree()) {
        const small = pending.takeSmall(Math.min(expressItems, maxBatch));
        if (small.length > 0) void flush(small, true);
      }
    });
  }

  async function flush(batch: Array<Submitted<Item, Result>>, express = false): Promise<void> {
    if (express) expressInFlight = true;
    else inFlight += 1;
    try {
      await (spanName === undefined
        ? write(batch)
        : inBatchSpan(
            spanName,
            batch.map((submitted) => submitted.context),
            () => write(batch),
          ));
    } catch (error) {
      // `write` settles its items; one it left unsettled by throwing gets that error
      // (settling a promise twice changes nothing).
      for (const submitted of batch) submitted.reject(error);
    } finally {
      if (express) expressInFlight = false;
      else inFlight -= 1;
      schedule();
      if (inFlight === 0 && !expressInFlight && pending.size === 0) {
        idle.splice(0).forEach((wake) => wake());
      }
    }
  }

  return {
    submit(item) {
      return new Promise<Result>((resolve, reject) => {
        pending.push({ item, resolve, reject, context: context.active() });
        schedule();
      });
    },
    drain() {
      if (inFlight === 0 && !expressInFlight && pending.size === 0) return Promise.resolve();
      return new Promise((resolve) => idle.push(resolve));
    },
  };
}
