// The WebhookLog state transitions a worker makes. Each is one statement (or one short
// transaction) so that an event's status, attempts and outcome always agree.
import type { EventError, EventResult } from '@ingest/contracts';
import type { Database } from '@ingest/db';
import type { Tx } from './processors/processor.js';

/** The channel the API listens on for events whose caller waits (`Prefer: wait`). */
export const EVENT_FINISHED_CHANNEL = 'webhook_log_finished';

export interface ClaimedEvent {
  /** The status it had when read (before this claim). */
  status: string;
  event: string | null;
  accountId: string;
  payload: unknown;
  notifyOnFinish: boolean;
  receivedAt: Date;
  /** An earlier event about one of the same slugs is not finished yet. */
  blocked: boolean;
  /** The attempt opened for this run; null when none was (blocked, or already finished). */
  attempt: number | null;
}

/**
 * Reads the events and, for each that need not wait for an earlier one and is not
 * finished, marks it processing and opens an attempt: one statement (one round trip, one
 * commit) for all of them. The attempts are committed on their own, before the changes
 * are applied, so that a worker dying mid-change still leaves its attempt on the receipt.
 * Two events of one call about the same slug: the later one sees the earlier one still
 * queued and waits, as it would in separate calls.
 *
 * The ordering check is written so that only a GIN index on `order_keys` can serve it:
 * as `EXISTS (... p.sequence < e.sequence)` the planner, costing EXISTS as "stop at the
 * first match", walked the sequence index from the oldest event and filtered, reading
 * every earlier event of the table: 9 ms a claim at 20,000 events, growing with history
 * (test/worker-claim-plan.test.ts). `count(*)` must find every match, so the index of
 * events about the same slugs (a handful of rows) is the cheapest plan, and `+ 0` keeps
 * the sequence index out of it altogether.
 */
export async function claimEvents(
  db: Database,
  eventIds: string[],
): Promise<Map<string, ClaimedEvent>> {
  // Straight to the pool, as a named statement: it runs for every job, and Prisma's
  // per-query work showed in the worker's profile.
  const { rows } = await db.pool.query<ClaimedEvent & { id: string }>({
    name: 'claim-events',
    text: CLAIM_EVENTS,
    values: [eventIds],
  });
  return new Map(rows.map(({ id, ...claimed }) => [id, claimed]));
}

const CLAIM_EVENTS = `
    WITH loaded AS (
      SELECT e.id, e.status, e.event, e.account_id, e.payload, e.notify_on_finish, e.received_at,
             (
               SELECT count(*) FROM webhook_logs p
               WHERE p.order_keys && e.order_keys
                 AND p.status IN ('queued', 'processing')
                 AND p.sequence + 0 < e.sequence
             ) > 0 AS blocked
      FROM webhook_logs e
      WHERE e.id = ANY($1::uuid[])
    ),
    started AS (
      UPDATE webhook_logs w
      SET status = 'processing', attempts = w.attempts + 1,
          started_at = COALESCE(w.started_at, now())
      FROM loaded
      WHERE w.id = loaded.id AND NOT loaded.blocked AND w.status IN ('queued', 'processing')
      RETURNING w.id, w.attempts
    ),
    opened AS (
      INSERT INTO event_attempts (event_id, number, started_at)
      SELECT id, attempts, now() FROM started
      RETURNING event_id, number
    )
    SELECT l.id, l.status, l.event, l.account_id AS "accountId", l.payload,
           l.notify_on_finish AS "notifyOnFinish", l.received_at AS "receivedAt", l.blocked,
           o.number AS attempt
    FROM loaded l LEFT JOIN opened o ON o.event_id = l.id`;

/**
 * When an event finishes, attempts still open never reported back: their worker died
 * (or they are duplicates still running, which then record themselves as such).
 */
async function closeOpenAttempts(
  tx: Tx,
  eventId: string,
  except: number | undefined,
): Promise<void> {
  await tx.$executeRaw`
    UPDATE event_attempts SET outcome = 'interrupted', finished_at = now()
    WHERE event_id = ${eventId}::uuid AND finished_at IS NULL AND number <> ${except ?? -1}`;
}

/**
 * Locks the events' rows for the transaction and says which this worker may still apply
 * (still `processing`; another run may have finished one meanwhile). Locked in id order,
 * so two transactions locking overlapping sets cannot deadlock each other.
 */
export async function lockStillProcessing(tx: Tx, eventIds: string[]): Promise<Set<string>> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM webhook_logs
    WHERE id = ANY(${eventIds}::uuid[]) AND status = 'processing'
    ORDER BY id FOR UPDATE`;
  return new Set(rows.map((row) => row.id));
}

async function notifyIf(tx: Tx, notify: boolean, eventId: string): Promise<void> {
  // Delivered on commit, so the waiting API reads the final receipt.
  if (notify) await tx.$executeRaw`SELECT pg_notify(${EVENT_FINISHED_CHANNEL}, ${eventId})`;
}

export interface AppliedEvent {
  eventId: string;
  attempt: number;
  result: EventResult;
  notifyOnFinish: boolean;
}

/**
 * Inside the transaction that applied the changes: each event succeeded, its attempt with
 * it, and attempts still open are closed as interrupted. One statement for all of them,
 * so the transaction holds its locks for one round trip, however many events it carries.
 */
export async function recordSuccesses(tx: Tx, applied: AppliedEvent[]): Promise<void> {
  if (applied.length === 0) return;
  const ids = applied.map((event) => event.eventId);
  const attempts = applied.map((event) => event.attempt);
  const results = applied.map((event) => JSON.stringify(event.result));
  const notify = applied.map((event) => event.notifyOnFinish);
  await tx.$executeRaw`
    WITH done AS (
      SELECT * FROM unnest(${ids}::uuid[], ${attempts}::int[], ${results}::text[]::jsonb[],
                           ${notify}::boolean[]) AS d(event_id, attempt, result, notify)
    ),
    finished AS (
      UPDATE webhook_logs w
      SET status = 'succeeded', result = d.result, error = NULL, finished_at = now()
      FROM done d WHERE w.id = d.event_id
    ),
    attempts_closed AS (
      UPDATE event_attempts a
      SET outcome = CASE WHEN a.number = d.attempt THEN 'succeeded' ELSE 'interrupted' END,
          finished_at = now()
      FROM done d
      WHERE a.event_id = d.event_id AND (a.number = d.attempt OR a.finished_at IS NULL)
    )
    -- Delivered on commit, so the waiting API reads the final receipt.
    SELECT pg_notify(${EVENT_FINISHED_CHANNEL}, d.event_id::text) FROM done d WHERE d.notify`;
}

/** This attempt found the event already finished by another (a duplicate run). */
export async function recordDuplicate(
  db: Database,
  eventId: string,
  attempt: number,
): Promise<void> {
  await db.prisma.$executeRaw`
    UPDATE event_attempts SET outcome = 'duplicate', finished_at = now()
    WHERE event_id = ${eventId}::uuid AND number = ${attempt}`;
}

/**
 * The attempt failed. `final`: the event failed for good (a permanent error, or the last
 * attempt); otherwise it goes back to `queued` to be retried, showing why it failed.
 */
export async function recordFailure(
  db: Database,
  eventId: string,
  attempt: number | undefined,
  error: EventError,
  final: boolean,
  notify: boolean,
): Promise<void> {
  const errorJson = JSON.stringify(error);
  await db.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`
      UPDATE webhook_logs
      SET status = ${final ? 'failed' : 'queued'}, error = ${errorJson}::jsonb,
          finished_at = ${final ? new Date() : null}
      WHERE id = ${eventId}::uuid AND status IN ('queued', 'processing')`;
    if (attempt !== undefined) {
      await tx.$executeRaw`
        UPDATE event_attempts
        SET outcome = ${final ? 'failed' : 'retrying'}, error = ${errorJson}::jsonb, finished_at = now()
        WHERE event_id = ${eventId}::uuid AND number = ${attempt}`;
    }
    if (final) {
      await closeOpenAttempts(tx, eventId, attempt);
      await notifyIf(tx, notify, eventId);
    }
  });
}
