import { createGroupCommit, databaseFailureOf, type Submitted } from '@ingest/db';
import { insertAccepted, type QueuedEvent } from '@ingest/event-log';
import type { ApiClients } from '../clients.js';
import { enqueueOrLeaveToReconciler } from './enqueue-accepted.js';

type Deps = Pick<ApiClients, 'db' | 'queue' | 'config' | 'logger'>;

/** Rows in one INSERT: enough to amortise a commit, small enough to keep latency flat. */
const MAX_BATCH_ROWS = 256;

export interface AcceptBatcher {
  /**
   * Records an accepted event (status `queued`) and queues its job. Resolves with the
   * time it was received once its row is committed and the enqueue was tried; rejects
   * when the row could not be written (nothing was recorded then).
   */
  accept(queued: QueuedEvent): Promise<Date>;
  /** Resolves once every event handed in so far is written (for shutdown). */
  drain(): Promise<void>;
}

type Waiting = Submitted<QueuedEvent, Date>;

/**
 * Group commit for the ingest path. Each request's row used to be its own INSERT and
 * commit; under load the commits (a WAL flush each) and the per-statement round trips
 * were the API's ceiling. Here requests arriving together share one multi-row INSERT and
 * one BullMQ `addBulk`, and each still answers only after its own row is committed.
 */
export function createAcceptBatcher(deps: Deps): AcceptBatcher {
  const group = createGroupCommit<QueuedEvent, Date>({
    // Leave half the pool to key lookups, idempotent and rejected events, and reads.
    maxInFlight: Math.max(1, Math.floor(deps.config.database.poolSize / 2)),
    maxBatch: MAX_BATCH_ROWS,
    async write(batch) {
      const received = await writeBatch(deps, batch);
      await enqueueOrLeaveToReconciler(
        deps,
        received.map(([waiting]) => waiting.item),
      );
      for (const [waiting, receivedAt] of received) waiting.resolve(receivedAt);
    },
  });
  return { accept: (queued) => group.submit(queued), drain: () => group.drain() };
}

/**
 * Writes a batch; answers each row's waiter that failed, and returns the rest with their
 * receive times. The database being away fails the whole batch (each request gets 503);
 * any other error is one row's, so the rows are written one by one to find whose.
 */
async function writeBatch(deps: Deps, batch: Waiting[]): Promise<Array<[Waiting, Date]>> {
  try {
    const receivedAt = await insertAccepted(
      deps.db.pool,
      batch.map((w) => w.item),
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
          return [waiting, await insertAccepted(deps.db.pool, [waiting.item])];
        } catch (rowError) {
          waiting.reject(rowError);
          return undefined;
        }
      }),
    );
    return written.filter((entry) => entry !== undefined);
  }
}
