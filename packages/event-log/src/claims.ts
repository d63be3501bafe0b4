import type { EventStatus } from '@ingest/contracts';
import type { Queryable } from './queryable.js';
import { idBounds } from './id-bounds.js';
import { isUnfinishedStatus, unfinished } from './status.js';

/** What a worker reads about an event to apply it. */
export interface EventRow {
  id: string;
  /** The name as recorded; the worker checks it names a processor. */
  event: string | null;
  accountId: string;
  payload: unknown;
  requestId: string;
  notifyOnFinish: boolean;
  receivedAt: Date;
  /** When an operator last sent it back to the queue (see replayFailed); null if never. */
  lastReplayedAt: Date | null;
  /** Acceptance order (a bigint, as text): its place in each of its lines. */
  sequence: string;
  orderKeys: string[];
}

/** What a job's claim (or read, see readEvents) of its event found. */
export type Claim =
  /** The event is this run's: status `processing`, attempt `attempt` opened. */
  | { outcome: 'claimed'; attempt: number; row: EventRow }
  /**
   * Read, not claimed (readEvents): queued and first in all its lines. The transaction
   * that applies it records its attempt whole, as a follower's.
   */
  | { outcome: 'ready'; row: EventRow }
  /** Read, not claimed: `processing`, started by a run that died. Claim it to count that. */
  | { outcome: 'started' }
  /** An earlier event of one of its lines is not finished. */
  | { outcome: 'blocked' }
  /** Finished already: by another run, or in the run of an earlier event of its line. */
  | { outcome: 'finished' }
  | { outcome: 'missing' };

/**
 * An earlier unfinished event of the same account stands in one of the event's lines:
 * one probe of pending_order_keys' primary key per order key. Each probe is a LATERAL
 * subquery with a LIMIT, which PostgreSQL cannot flatten into a join: joined to the
 * unnested keys (or written `p.key = ANY(order_keys)`), it may probe by account and
 * sequence alone and filter the key afterwards, reading the account's whole backlog in
 * the index for every claim (test/worker-finish-plan.test.ts).
 */
const BLOCKED = (e: string) => `EXISTS (
  SELECT 1 FROM unnest(${e}.order_keys) AS k(key)
  CROSS JOIN LATERAL (
    SELECT 1 FROM pending_order_keys p
    WHERE p.account_id = ${e}.account_id AND p.key = k.key AND p.sequence < ${e}.sequence
    LIMIT 1) AS ahead)`;

/**
 * The event's account is being erased (@ingest/erasure): its event is not applied, but
 * taken as finished, and deleted by the erasure.
 */
const ERASING = (e: string) => `EXISTS (
  SELECT 1 FROM account_erasures x WHERE x.account_id = ${e}.account_id AND x.finished_at IS NULL)`;

/** What both a claim and a read load of an event, from table alias `e`: its EventRow, its status, and whether it is blocked. */
const LOADED_COLUMNS = `
  e.id, e.status, e.event, e.account_id AS "accountId", e.payload, e.request_id AS "requestId",
  e.notify_on_finish AS "notifyOnFinish", e.received_at AS "receivedAt",
  e.last_replayed_at AS "lastReplayedAt", e.sequence, e.order_keys AS "orderKeys",
  ${BLOCKED('e')} AS blocked, ${ERASING('e')} AS erasing`;

/**
 * Reads the events and, for each that is first in all its lines and not finished, marks
 * it processing and opens an attempt: one statement (one round trip, one commit) for all.
 * The update joins the read, which PostgreSQL cannot prune while planning: `$2` and `$3`
 * bound its ids, so that only their partitions are planned (id-bounds.ts). The attempts
 * commit on their own, before the changes are applied, so that a worker dying mid-change
 * still leaves its attempt on the receipt. A `processing` event is claimed again: its job
 * is running again because the worker that had it died.
 */
const CLAIM_EVENTS = `
  WITH loaded AS (
    SELECT ${LOADED_COLUMNS} FROM webhook_logs e WHERE e.id = ANY($1::uuid[])
  ),
  started AS (
    UPDATE webhook_logs w
    SET status = 'processing', attempts = w.attempts + 1,
        started_at = COALESCE(w.started_at, now())
    FROM loaded
    WHERE w.id = loaded.id AND w.id BETWEEN $2::uuid AND $3::uuid
      AND NOT loaded.blocked AND NOT loaded.erasing AND ${unfinished('w')}
    RETURNING w.id, w.attempts
  ),
  opened AS (
    INSERT INTO event_attempts (event_id, number, started_at)
    SELECT id, attempts, now() FROM started
    RETURNING event_id, number
  )
  SELECT l.*, o.number AS attempt FROM loaded l LEFT JOIN opened o ON o.event_id = l.id`;

type ClaimRow = EventRow & {
  status: EventStatus;
  blocked: boolean;
  erasing: boolean;
  attempt: number | null;
};

/** Claims the events of `eventIds` (see CLAIM_EVENTS); an id not in the map is not recorded. */
export async function claimEvents(on: Queryable, eventIds: string[]): Promise<Map<string, Claim>> {
  if (eventIds.length === 0) return new Map();
  const { rows } = await on.query<ClaimRow>({
    name: 'claim-events',
    text: CLAIM_EVENTS,
    values: [eventIds, ...idBounds(eventIds)],
  });
  return new Map(rows.map((row) => [row.id, claimOf(row)]));
}

function claimOf({ status, blocked, erasing, attempt, ...row }: ClaimRow): Claim {
  if (attempt !== null) return { outcome: 'claimed', attempt, row };
  if (erasing) return { outcome: 'finished' };
  // Unfinished when read but not claimed: another run finished it between read and update.
  const waiting = blocked && isUnfinishedStatus(status);
  return waiting ? { outcome: 'blocked' } : { outcome: 'finished' };
}

const READ_EVENTS = `
  SELECT ${LOADED_COLUMNS}, NULL::int AS attempt
  FROM webhook_logs e
  WHERE e.id = ANY($1::uuid[]) AND e.id BETWEEN $2::uuid AND $3::uuid`;

/**
 * Reads the events, changing nothing: one read-only statement for all, with no commit to
 * wait for. A job's first delivery reads its event and has it claimed, applied and
 * recorded in the one transaction of the apply batcher; a redelivery claims it
 * (claimEvents), so that a change that kills its worker is counted on every try after
 * the first and its event fails once the attempts run out. An id not in the map is not
 * recorded.
 */
export async function readEvents(on: Queryable, eventIds: string[]): Promise<Map<string, Claim>> {
  if (eventIds.length === 0) return new Map();
  const { rows } = await on.query<ClaimRow>({
    name: 'read-events',
    text: READ_EVENTS,
    values: [eventIds, ...idBounds(eventIds)],
  });
  return new Map(rows.map((row) => [row.id, readOf(row)]));
}

function readOf({ status, blocked, erasing, attempt: _none, ...row }: ClaimRow): Claim {
  if (erasing) return { outcome: 'finished' };
  if (blocked && isUnfinishedStatus(status)) return { outcome: 'blocked' };
  if (status === 'queued') return { outcome: 'ready', row };
  return status === 'processing' ? { outcome: 'started' } : { outcome: 'finished' };
}

/**
 * The events of `eventIds` still waiting for an earlier one. A parked job asks again, since
 * whoever finished the earlier event may have looked for the next in line before it parked.
 */
export async function stillBlocked(on: Queryable, eventIds: string[]): Promise<Set<string>> {
  const { rows } = await on.query<{ id: string }>({
    name: 'still-blocked',
    text: `SELECT e.id FROM webhook_logs e
           WHERE e.id = ANY($1::uuid[]) AND ${unfinished('e')} AND ${BLOCKED('e')}`,
    values: [eventIds],
  });
  return new Set(rows.map((row) => row.id));
}
