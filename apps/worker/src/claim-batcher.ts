import { createGroupCommit } from '@ingest/db';
import type { WorkerDeps } from './deps.js';
import { claimEvents, type ClaimedEvent } from './event-log.js';

export interface ClaimBatcher {
  /** The event as read, with the attempt opened for this run (see claimEvents). */
  claim(eventId: string): Promise<ClaimedEvent | undefined>;
}

/** Claims in one statement at most: one round trip and one commit for all of them. */
const MAX_CLAIMS_PER_STATEMENT = 64;
/** Statements at once; the apply batcher's transactions get most of the pool. */
const MAX_CLAIM_STATEMENTS = 2;

/**
 * Group commit for claims: jobs that start together are claimed in one statement, which
 * saves a round trip and a commit (a WAL flush) per job.
 */
export function createClaimBatcher(deps: Pick<WorkerDeps, 'db'>): ClaimBatcher {
  const group = createGroupCommit<string, ClaimedEvent | undefined>({
    maxInFlight: MAX_CLAIM_STATEMENTS,
    maxBatch: MAX_CLAIMS_PER_STATEMENT,
    async write(batch) {
      const claimed = await claimEvents(
        deps.db,
        batch.map((waiting) => waiting.item),
      );
      const answered = new Set<string>();
      for (const waiting of batch) {
        const event = claimed.get(waiting.item);
        // A job handed in twice at once (a stalled job taken again): the first run got
        // the attempt; the second finds none opened for it and leaves the event alone.
        waiting.resolve(
          event === undefined || !answered.has(waiting.item) ? event : { ...event, attempt: null },
        );
        answered.add(waiting.item);
      }
    },
  });
  return { claim: (eventId) => group.submit(eventId) };
}
