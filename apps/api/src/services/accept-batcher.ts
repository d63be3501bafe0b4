import { createGroupCommit, databaseFailureOf, type Submitted } from '@ingest/db';
import {
  insertAccepted,
  recordAcceptedBatch,
  recordAcceptedOnce,
  type AcceptedEntry,
  type BatchOutcome,
  type IdempotencyClaim,
  type QueuedEvent,
  type RecordedOnce,
} from '@ingest/event-log';
import type { ApiClients } from '../clients.js';
import { enqueueOrLeaveToReconciler } from './enqueue-accepted.js';

type Deps = Pick<ApiClients, 'db' | 'queues' | 'config' | 'logger' | 'shares'>;

/** Rows in one INSERT: enough to amortise a commit, small enough to keep latency flat. */
const MAX_BATCH_ROWS = 256;

export interface AcceptBatcher {
  /**
   * Records an accepted event (status `queued`) and queues its job. Resolves with the
   * time it was received once its row is committed and the enqueue was tried; rejects
   * when the row could not be written (nothing was recorded then).
   */
  accept(queued: QueuedEvent): Promise<Date>;
  /**
   * The same under an Idempotency-Key: records the event and claims the key together,
   * unless the key names an earlier event, which it then resolves with (not recorded,
   * not queued). Rejects with IDEMPOTENCY_KEY_MISMATCH for a key used with another body.
   */
  acceptOnce(queued: QueuedEvent, claim: IdempotencyClaim): Promise<RecordedOnce>;
  /** Resolves once every event handed in so far is written (for shutdown). */
  drain(): Promise<void>;
}

type Waiting = Submitted<AcceptedEntry, RecordedOnce>;

/**
 * Group commit for the ingest path. Each request's row used to be its own INSERT and
 * commit; under load the commits (a WAL flush each) and the per-statement round trips
 * were the API's ceiling. Here requests arriving together share one transaction and one
 * BullMQ `addBulk`, with their Idempotency-Keys when they have some, and each still
 * answers only after its own row is committed.
 *
 * A key that another transaction is claiming (a concurrent copy of the same request) is
 * not waited for inside the batch, which would hold every other request of it: that
 * request is recorded alone, outside the batches, as every keyed request used to be.
 */
export function createAcceptBatcher(deps: Deps): AcceptBatcher {
  const alone = new Set<Promise<void>>();
  const recordAlone = (waiting: Waiting) => {
    const settling = settleAlone(deps, waiting).finally(() => alone.delete(settling));
    alone.add(settling);
  };
  const group = createGroupCommit<AcceptedEntry, RecordedOnce>({
    // Leave half the pool to key lookups, requests recorded alone, and reads.
    maxInFlight: Math.max(1, Math.floor(deps.config.database.poolSize / 2)),
    maxBatch: MAX_BATCH_ROWS,
    spanName: 'event_log.accept_batch',
    async write(batch) {
      const { together, repeated } = splitRepeatedKeys(batch);
      const recorded: Array<[Waiting, Date]> = [];
      for (const [waiting, outcome] of await writeTogether(deps, together)) {
        if ('alone' in outcome) recordAlone(waiting);
        else if ('refused' in outcome) waiting.reject(outcome.refused);
        else if ('replayOf' in outcome) waiting.resolve(outcome);
        else recorded.push([waiting, outcome.receivedAt]);
      }
      // Once their first has claimed the key: they find it taken.
      repeated.forEach(recordAlone);
      await enqueueOrLeaveToReconciler(
        deps,
        recorded.map(([waiting]) => ({ ...waiting.item.queued, trace: waiting.context })),
      );
      for (const [waiting, receivedAt] of recorded) waiting.resolve({ receivedAt });
    },
  });
  return {
    accept: async (queued) => {
      const outcome = await group.submit({ queued });
      if ('receivedAt' in outcome) return outcome.receivedAt;
      throw new Error(`event ${queued.id} without a key was taken for a replay`);
    },
    acceptOnce: (queued, claim) => group.submit({ queued, claim }),
    async drain() {
      await group.drain();
      await Promise.all(alone);
    },
  };
}

/** The batch with each key once; the later requests of a key repeated within it apart. */
function splitRepeatedKeys(batch: Waiting[]) {
  const seen = new Set<string>();
  const together: Waiting[] = [];
  const repeated: Waiting[] = [];
  for (const waiting of batch) {
    const { queued, claim } = waiting.item;
    const key = claim && `${queued.accountId}/${claim.key}`;
    if (key !== undefined && seen.has(key)) repeated.push(waiting);
    else together.push(waiting);
    if (key !== undefined) seen.add(key);
  }
  return { together, repeated };
}

/**
 * Writes a batch in one transaction (one statement when no request has a key). The
 * database being away fails the whole batch (each request gets 503); any other error is
 * one request's, so they are recorded alone to find whose.
 */
async function writeTogether(
  deps: Deps,
  batch: Waiting[],
): Promise<Array<[Waiting, BatchOutcome | { alone: true }]>> {
  if (batch.length === 0) return [];
  try {
    const entries = batch.map((waiting) => waiting.item);
    if (entries.every((entry) => entry.claim === undefined)) {
      const receivedAt = await insertAccepted(
        deps.db.pool,
        entries.map((entry) => entry.queued),
      );
      return batch.map((waiting) => [waiting, { receivedAt }]);
    }
    const outcomes = await recordAcceptedBatch(deps.db.pool, entries);
    return batch.map((waiting, i) => [waiting, outcomes[i] ?? { alone: true }]);
  } catch (error) {
    if (batch.length === 1 || databaseFailureOf(error) !== undefined) {
      for (const waiting of batch) waiting.reject(error);
      return [];
    }
    return batch.map((waiting) => [waiting, { alone: true }]);
  }
}

/** Records one request by itself: its key's claim may wait for a concurrent copy. */
async function settleAlone(deps: Deps, waiting: Waiting): Promise<void> {
  const { queued, claim } = waiting.item;
  try {
    const outcome =
      claim === undefined
        ? { receivedAt: await insertAccepted(deps.db.pool, [queued]) }
        : await recordAcceptedOnce(deps.db.pool, queued, claim);
    if ('receivedAt' in outcome) {
      await enqueueOrLeaveToReconciler(deps, [{ ...queued, trace: waiting.context }]);
    }
    waiting.resolve(outcome);
  } catch (error) {
    waiting.reject(error);
  }
}
