import type { EventResult } from '@ingest/contracts';
import { createGroupCommit, databaseFailureOf, type Submitted } from '@ingest/db';
import type { WorkerDeps } from './deps.js';
import { lockStillProcessing, recordSuccesses } from './event-log.js';
import { applyChanges, ChangeFailed, type RoutedEvent } from './processors/index.js';

/** An event claimed by this run (its attempt open), validated and routed: ready to apply. */
export interface ReadyEvent {
  eventId: string;
  attempt: number;
  notifyOnFinish: boolean;
  routed: RoutedEvent;
}

export interface ApplyBatcher {
  /**
   * Applies the change and records the event's success in one commit. Resolves with what
   * changed, or undefined when another run had finished the event already (nothing was
   * changed); rejects with the event's own error, or the database's.
   */
  apply(event: ReadyEvent): Promise<EventResult | undefined>;
}

/** Events in one transaction at most: enough to amortise it, few enough to hold locks briefly. */
const MAX_EVENTS_PER_TRANSACTION = 32;

type Waiting = Submitted<ReadyEvent, EventResult | undefined>;

/**
 * Group commit for the worker. An event applied alone costs an interactive transaction:
 * BEGIN, lock, the change, the success record, COMMIT, five statements through Prisma,
 * whose per-statement work was most of the worker's CPU (README, "Performance"). Events
 * ready at the same moment share one transaction here: one lock statement, the changes
 * (new articles in one INSERT, see applyChanges), one success statement, one commit.
 *
 * Sharing is safe because events claimed at the same time are about different slugs (a
 * claim waits while an earlier event about any of its slugs is unfinished). When one
 * event's change fails, the transaction is rolled back, that event is applied alone (so
 * it fails, or is retried, exactly as it would have alone) and the others are applied
 * together again.
 */
export function createApplyBatcher(deps: Pick<WorkerDeps, 'db' | 'config'>): ApplyBatcher {
  const group = createGroupCommit<ReadyEvent, EventResult | undefined>({
    // Leave the rest of the pool to claims and failure records.
    maxInFlight: Math.max(1, Math.floor(deps.config.database.poolSize / 2)),
    maxBatch: MAX_EVENTS_PER_TRANSACTION,
    write: (batch) => applyBatch(deps.db, batch),
  });
  return { apply: (event) => group.submit(event) };
}

async function applyBatch(db: WorkerDeps['db'], batch: Waiting[]): Promise<void> {
  try {
    const results = await applyTogether(
      db,
      batch.map((waiting) => waiting.item),
    );
    batch.forEach((waiting, index) => waiting.resolve(results[index]));
  } catch (error) {
    const reason = error instanceof ChangeFailed ? error.reason : error;
    if (batch.length === 1 || databaseFailureOf(reason) === 'unreachable') {
      for (const waiting of batch) waiting.reject(reason);
      return;
    }
    if (error instanceof ChangeFailed) {
      const failed = batch[error.index] as Waiting;
      await applyBatch(db, [failed]);
      await applyBatch(
        db,
        batch.filter((_, index) => index !== error.index),
      );
      return;
    }
    // The shared statements failed (a deadlock with another transaction, say): one by one.
    for (const waiting of batch) await applyBatch(db, [waiting]);
  }
}

async function applyTogether(
  db: WorkerDeps['db'],
  events: ReadyEvent[],
): Promise<Array<EventResult | undefined>> {
  return db.prisma.$transaction(async (tx) => {
    const ours = await lockStillProcessing(
      tx,
      events.map((event) => event.eventId),
    );
    // Events another run finished meanwhile are left out: nothing to change for them. So
    // is a second run of an event in the same batch (a stalled job taken again while its
    // first run waited here): it would apply the change twice.
    const mine = events.flatMap((event, index) => {
      if (!ours.has(event.eventId)) return [];
      ours.delete(event.eventId);
      return [index];
    });
    let changes: EventResult[];
    try {
      changes = await applyChanges(
        tx,
        mine.map((index) => (events[index] as ReadyEvent).routed),
      );
    } catch (error) {
      if (!(error instanceof ChangeFailed)) throw error;
      throw new ChangeFailed(mine[error.index] as number, error.reason);
    }
    await recordSuccesses(
      tx,
      mine.map((index, position) => ({
        ...(events[index] as ReadyEvent),
        result: changes[position] as EventResult,
      })),
    );
    const results = new Array<EventResult | undefined>(events.length);
    mine.forEach((index, position) => (results[index] = changes[position]));
    return results;
  });
}
