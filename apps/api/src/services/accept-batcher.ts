import { databaseFailureOf } from '@ingest/db';
import type { ApiDeps } from '../deps.js';
import { enqueueOrLeaveToReconciler } from './enqueue-accepted.js';
import { insertAcceptedEvents, type AcceptedRecord } from './event-record.js';

type Deps = Pick<ApiDeps, 'db' | 'queue' | 'config' | 'logger'>;

/** Rows in one INSERT: enough to amortise a commit, small enough to keep latency flat. */
const MAX_BATCH_ROWS = 256;

export interface AcceptBatcher {
  /**
   * Records an accepted event (status `queued`) and queues its job. Resolves with the
   * time it was received once its row is committed and the enqueue was tried; rejects
   * when the row could not be written (nothing was recorded then).
   */
  accept(record: AcceptedRecord): Promise<Date>;
  /** Resolves once every event handed in so far is written (for shutdown). */
  drain(): Promise<void>;
}

interface Waiting {
  record: AcceptedRecord;
  resolve(receivedAt: Date): void;
  reject(error: unknown): void;
}

/**
 * Group commit for the ingest path. Each request's row used to be its own INSERT and
 * commit; under load the commits (a WAL flush each) and the per-statement round trips
 * were the API's ceiling. Here requests arriving together share one multi-row INSERT and
 * one BullMQ `addBulk`, and each still answers only after its own row is committed.
 *
 * Batches form by themselves: a flush starts on the next turn of the event loop, and at
 * most `maxFlushes` run at once, so while they are busy the next requests gather into
 * the next batch. Hand-written rather than DataLoader because that limit on flushes in
 * flight is what makes batches grow with load, and DataLoader dispatches every tick.
 */
export function createAcceptBatcher(deps: Deps): AcceptBatcher {
  // Leave half the pool to key lookups, idempotent and rejected events, and reads.
  const maxFlushes = Math.max(1, Math.floor(deps.config.database.poolSize / 2));
  let pending: Waiting[] = [];
  let flushing = 0;
  let scheduled = false;
  const idle: Array<() => void> = [];

  function schedule() {
    if (scheduled || pending.length === 0 || flushing >= maxFlushes) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (pending.length > 0 && flushing < maxFlushes) void flush(takeBatch());
    });
  }

  function takeBatch(): Waiting[] {
    const batch = pending.slice(0, MAX_BATCH_ROWS);
    pending = pending.slice(batch.length);
    return batch;
  }

  async function flush(batch: Waiting[]): Promise<void> {
    flushing += 1;
    try {
      const received = await writeBatch(deps, batch);
      await enqueueOrLeaveToReconciler(
        deps,
        received.map(([waiting]) => waiting.record),
      );
      for (const [waiting, receivedAt] of received) waiting.resolve(receivedAt);
    } finally {
      flushing -= 1;
      schedule();
      if (flushing === 0 && pending.length === 0) idle.splice(0).forEach((wake) => wake());
    }
  }

  return {
    accept(record) {
      return new Promise<Date>((resolve, reject) => {
        pending.push({ record, resolve, reject });
        schedule();
      });
    },
    drain() {
      if (flushing === 0 && pending.length === 0) return Promise.resolve();
      return new Promise((resolve) => idle.push(resolve));
    },
  };
}

/**
 * Writes a batch; answers each row's waiter that failed, and returns the rest with their
 * receive times. The database being away fails the whole batch (each request gets 503);
 * any other error is one row's, so the rows are written one by one to find whose.
 */
async function writeBatch(deps: Deps, batch: Waiting[]): Promise<Array<[Waiting, Date]>> {
  try {
    const receivedAt = await insertAcceptedEvents(
      deps.db.pool,
      batch.map((w) => w.record),
    );
    return batch.map((waiting) => [waiting, receivedAt]);
  } catch (error) {
    if (batch.length === 1 || databaseFailureOf(error) !== undefined) {
      for (const waiting of batch) waiting.reject(error);
      return [];
    }
    const written = await Promise.all(
      batch.map(async (waiting): Promise<[Waiting, Date] | undefined> => {
        try {
          return [waiting, await insertAcceptedEvents(deps.db.pool, [waiting.record])];
        } catch (rowError) {
          waiting.reject(rowError);
          return undefined;
        }
      }),
    );
    return written.filter((entry) => entry !== undefined);
  }
}
