import { createGroupCommit, databaseFailureOf, type Submitted } from '@ingest/db';
import { recordCalls, type CallRecord, type Recorded } from '@ingest/event-log';
import type { ApiClients } from '../clients.js';
import { enqueueOrLeaveToReconciler, type TracedEvent } from './enqueue-accepted.js';

type Deps = Pick<ApiClients, 'db' | 'queues' | 'config' | 'logger' | 'shares'>;

/** Events in one write: enough to amortise a commit, few enough to keep latency flat. */
const MAX_EVENTS_PER_WRITE = 256;

export interface CallRecorder {
  /**
   * Records a call's events (accepted ones `queued`, refused ones `rejected`) and queues
   * the accepted ones' jobs; resolves with each accepted event's outcome, in order, once
   * they are committed. Rejects when nothing could be written, or with
   * IDEMPOTENCY_KEY_IN_USE (409) when a concurrent copy held a key of the call for 5 s.
   */
  record(call: CallRecord): Promise<Recorded[]>;
  /** Resolves once every call handed in so far is written (for shutdown). */
  drain(): Promise<void>;
}

type Waiting = Submitted<CallRecord, Recorded[]>;

const eventsOf = (call: CallRecord) => call.accepted.length + call.rejected.length;

/**
 * Group commit for the publish path: calls arriving together (single publishes and
 * batches alike) share one write, one transaction and one BullMQ `addBulk`, and each is
 * still answered only once its own events are committed. A call whose key another
 * transaction is claiming, or repeats a key of another call of the write, is recorded
 * alone after it, where waiting for the key stalls no other call.
 */
export function createCallRecorder(deps: Deps): CallRecorder {
  const alone = new Set<Promise<void>>();
  const recordAlone = (waiting: Waiting) => {
    const settling = settleAlone(deps, waiting).finally(() => alone.delete(settling));
    alone.add(settling);
  };
  const group = createGroupCommit<CallRecord, Recorded[]>({
    // Leave half the pool to calls recorded alone, key lookups and reads.
    maxInFlight: Math.max(1, Math.floor(deps.config.database.poolSize / 2)),
    maxBatch: MAX_EVENTS_PER_WRITE,
    sizeOf: eventsOf,
    spanName: 'event_log.accept_batch',
    async write(batch) {
      const { together, repeated } = splitRepeatedKeys(batch);
      const recorded: Array<[Waiting, Recorded[]]> = [];
      for (const [waiting, outcome] of await writeTogether(deps, together)) {
        if (outcome === 'alone') recordAlone(waiting);
        else recorded.push([waiting, outcome]);
      }
      repeated.forEach(recordAlone); // once their first has claimed the key: they find it taken
      await enqueueOrLeaveToReconciler(deps, recorded.flatMap(queuedOf));
      for (const [waiting, outcome] of recorded) waiting.resolve(outcome);
    },
  });
  return {
    record: (call) => group.submit(call),
    async drain() {
      await group.drain();
      await Promise.all(alone);
    },
  };
}

/** The accepted events a call recorded (not those its keys replayed), in its trace. */
const queuedOf = ([waiting, outcome]: [Waiting, Recorded[]]): TracedEvent[] =>
  waiting.item.accepted.flatMap(({ queued }, index) =>
    outcome[index] !== undefined && 'receivedAt' in outcome[index]
      ? [{ ...queued, trace: waiting.context }]
      : [],
  );

/** The calls with each key once in the write; the calls repeating a key apart. */
function splitRepeatedKeys(batch: Waiting[]) {
  const seen = new Set<string>();
  const together: Waiting[] = [];
  const repeated: Waiting[] = [];
  for (const waiting of batch) {
    const keys = waiting.item.accepted.flatMap(({ queued, claim }) =>
      claim === undefined ? [] : [`${queued.accountId}/${claim.key}`],
    );
    if (keys.some((key) => seen.has(key))) repeated.push(waiting);
    else together.push(waiting);
    keys.forEach((key) => seen.add(key));
  }
  return { together, repeated };
}

/**
 * Writes calls together. A failure of the database (away, timed out, a conflict) fails
 * them all (each answers 503, to be retried); any other error is one call's, so they are
 * recorded alone to find whose.
 */
async function writeTogether(
  deps: Deps,
  batch: Waiting[],
): Promise<Array<[Waiting, Recorded[] | 'alone']>> {
  if (batch.length === 0) return [];
  try {
    const outcomes = await recordCalls(
      deps.db.pool,
      batch.map((waiting) => waiting.item),
    );
    return batch.map((waiting, index) => {
      const outcome = outcomes[index];
      return [waiting, outcome === undefined || 'alone' in outcome ? 'alone' : outcome.recorded];
    });
  } catch (error) {
    if (batch.length === 1 || databaseFailureOf(error) !== undefined) {
      for (const waiting of batch) waiting.reject(error);
      return [];
    }
    return batch.map((waiting) => [waiting, 'alone']);
  }
}

/** Records one call by itself, waiting for its keys' claims (see recordCalls). */
async function settleAlone(deps: Deps, waiting: Waiting): Promise<void> {
  try {
    const [outcome] = await recordCalls(deps.db.pool, [waiting.item], { waitForKeys: true });
    if (outcome === undefined || 'alone' in outcome) {
      throw new Error('a key of the call was freed while its lock was held');
    }
    await enqueueOrLeaveToReconciler(deps, queuedOf([waiting, outcome.recorded]));
    waiting.resolve(outcome.recorded);
  } catch (error) {
    waiting.reject(error);
  }
}
