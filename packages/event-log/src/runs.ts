import type { Prisma } from '@ingest/db';
import type { EventRow } from './claims.js';
import { idBounds } from './id-bounds.js';
import { idBoundaryAt, timeOfId } from './partitions/partition-range.js';

export type Tx = Prisma.TransactionClient;

export interface RunRequest {
  /** An event first in all its lines, claimed (`processing`) or read (`queued`). */
  headId: string;
  /** Whether its job claimed it (see claimEvents) or only read it (readEvents). */
  claimed: boolean;
  /** How many of the events behind it in its line may join its run. */
  maxFollowers: number;
}

/**
 * A follower's row; `place` null when the head has none, `status` null when its place's
 * event lies before FOLLOWERS_FROM_MS (see lockHeadsAndRuns).
 */
type FollowerRow = EventRow & { headId: string; place: string | null; status: string | null };

/**
 * How far before the oldest head a follower's id may lie and still join its run. A
 * follower was accepted after its head, so its id (UUIDv7, the accepting API's clock) is
 * later unless the APIs' clocks disagree, or an operator replayed an old event into the
 * line. A constant bound lets PostgreSQL leave the older partitions out of the plan.
 */
const FOLLOWERS_FROM_MS = 24 * 60 * 60 * 1000;

/**
 * Inside the transaction that will apply them: locks the heads still this worker's to apply
 * (still `processing` if claimed, still `queued` if read: another run may have finished or
 * claimed one meanwhile), in id order so that
 * two transactions locking overlapping sets cannot deadlock, and finds each one's run: the
 * events right behind it in its line, to be applied after it in the same transaction.
 *
 * A run follows a head with a single order key, and takes the queued events behind it in
 * that line, in order, up to the first that stands in another line too (a rename, which
 * must be first in both of its lines and so waits to be a head itself) or is not queued.
 * Followers need no lock: every one of them is blocked, for every other worker, by the
 * head's place in the line until this transaction commits.
 *
 * The heads' ids are bounded (id-bounds.ts); the followers' are not known in advance, and
 * are read from FOLLOWERS_FROM_MS before the oldest head on: a place whose event lies
 * earlier ends the run there (its event is applied by its own job), so a run never skips
 * one of its line.
 *
 * Returns the locked heads with their followers, in line order.
 */
export async function lockHeadsAndRuns(
  tx: Tx,
  requests: RunRequest[],
): Promise<Map<string, EventRow[]>> {
  if (requests.length === 0) return new Map();
  const [lowest, highest] = idBounds(requests.map((r) => r.headId));
  // An id that is no UUIDv7 says nothing of time: then no bound (0).
  const followersFrom = idBoundaryAt((timeOfId(lowest) ?? FOLLOWERS_FROM_MS) - FOLLOWERS_FROM_MS);
  const rows = await tx.$queryRaw<FollowerRow[]>`
    WITH locked AS MATERIALIZED (
      SELECT w.id, w.account_id, w.order_keys, w.sequence, r.max_followers
      FROM webhook_logs w
      JOIN unnest(${requests.map((r) => r.headId)}::uuid[],
                  ${requests.map((r) => r.maxFollowers)}::int[],
                  ${requests.map((r) => (r.claimed ? 'processing' : 'queued'))}::text[])
           AS r(id, max_followers, status)
        ON r.id = w.id
      WHERE w.status = r.status AND w.id BETWEEN ${lowest}::uuid AND ${highest}::uuid
      ORDER BY w.id
      FOR UPDATE OF w
    )
    SELECT l.id AS "headId", f.place::text AS place, f.id, f.event,
           f.account_id AS "accountId", f.payload,
           f.request_id AS "requestId", f.notify_on_finish AS "notifyOnFinish",
           f.received_at AS "receivedAt", f.last_replayed_at AS "lastReplayedAt",
           f.sequence::text AS sequence,
           f.order_keys AS "orderKeys", f.status
    FROM locked l
    LEFT JOIN LATERAL (
      SELECT n.*, p.sequence AS place
      FROM pending_order_keys p
      LEFT JOIN webhook_logs n ON n.id = p.event_id AND n.id >= ${followersFrom}::uuid
      WHERE cardinality(l.order_keys) = 1 AND l.max_followers > 0
        AND p.account_id = l.account_id AND p.key = l.order_keys[1] AND p.sequence > l.sequence
      ORDER BY p.sequence
      LIMIT l.max_followers
    ) f ON TRUE
    ORDER BY l.id, f.place`;
  const runs = new Map<string, EventRow[]>();
  const closed = new Set<string>();
  for (const { headId, place, status, ...follower } of rows) {
    const run = runs.get(headId) ?? [];
    runs.set(headId, run);
    if (place === null || closed.has(headId)) continue; // no follower (LEFT JOIN), or run over
    if (status === 'queued' && follower.orderKeys.length === 1) run.push(follower);
    else closed.add(headId);
  }
  return runs;
}
