import { createGroupCommit } from '@ingest/db';
import {
  claimEvents,
  readEvents,
  stillBlocked,
  type Claim,
  type Queryable,
} from '@ingest/event-log';
import { lanes } from '@ingest/fairness';
import type { WorkerDeps } from '../deps.js';

export interface ClaimBatcher {
  /** Claims the event for this run (see claimEvents); `accountId` picks its turn. */
  claim(eventId: string, accountId: string): Promise<Claim>;
  /** Reads the event for this run's first delivery, claiming nothing (see readEvents). */
  read(eventId: string, accountId: string): Promise<Claim>;
  /** Whether the event still waits for an earlier one of its lines (see stillBlocked). */
  stillBlocked(eventId: string): Promise<boolean>;
}

/** Ids in one statement at most: one round trip and one commit for all of them. */
const MAX_IDS_PER_STATEMENT = 64;
/** Statements at once; the apply batcher's transactions get most of the pool. */
const MAX_STATEMENTS = 2;
/** Accounts with this many claims waiting, or fewer, may go in a spare statement. */
const EXPRESS_IDS = 8;

/**
 * Group commit for claims (and for the question a parked job asks): jobs that start together
 * are claimed in one statement, saving a round trip and a commit (a WAL flush) per job.
 */
export function createClaimBatcher(deps: Pick<WorkerDeps, 'db'>): ClaimBatcher {
  const statement = (
    spanName: string,
    send: (on: Queryable, eventIds: string[]) => Promise<Map<string, Claim>>,
  ) =>
    createGroupCommit<{ eventId: string; accountId: string }, Claim>({
      maxInFlight: MAX_STATEMENTS,
      maxBatch: MAX_IDS_PER_STATEMENT,
      spanName,
      // In turns by account: a quiet account's claim never waits behind a busy one's jobs.
      waiting: lanes(({ item }) => item.accountId),
      expressItems: EXPRESS_IDS,
      async write(batch) {
        const found = await send(
          deps.db.pool,
          batch.map((waiting) => waiting.item.eventId),
        );
        const answer = answersOf(found);
        for (const { item, resolve } of batch) resolve(answer(item.eventId));
      },
    });
  const claims = statement('event_log.claim', claimEvents);
  const reads = statement('event_log.read', readEvents);
  const blocked = createGroupCommit<string, boolean>({
    maxInFlight: 1,
    maxBatch: MAX_IDS_PER_STATEMENT,
    async write(batch) {
      const waiting = await stillBlocked(
        deps.db.pool,
        batch.map((entry) => entry.item),
      );
      for (const { item, resolve } of batch) resolve(waiting.has(item));
    },
  });
  return {
    claim: (eventId, accountId) => claims.submit({ eventId, accountId }),
    read: (eventId, accountId) => reads.submit({ eventId, accountId }),
    stillBlocked: (id) => blocked.submit(id),
  };
}

/**
 * Answers the jobs of one claim statement, in the order they came: an event the statement
 * did not find is not recorded. A job handed in twice at once (a stalled job taken again)
 * is answered twice: the first run got the attempt; the second has nothing to do.
 */
export function answersOf(claimed: ReadonlyMap<string, Claim>): (eventId: string) => Claim {
  const answered = new Set<string>();
  return (eventId) => {
    const claim = claimed.get(eventId) ?? { outcome: 'missing' };
    const again = answered.has(eventId);
    answered.add(eventId);
    const taken = claim.outcome === 'claimed' || claim.outcome === 'ready';
    return again && taken ? { outcome: 'finished' } : claim;
  };
}
