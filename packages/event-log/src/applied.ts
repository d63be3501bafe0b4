import type { EventError, EventResult, Result } from '@ingest/contracts';
import { Prisma } from '@ingest/db';
import type { Tx } from './runs.js';
import { idBounds } from './id-bounds.js';
import { DELETE_PLACES, LEFT_PLACES } from './places.js';
import { EVENT_FINISHED_CHANNEL } from './status.js';

export interface AppliedEvent {
  eventId: string;
  /**
   * The attempt its claim opened; null for a follower, applied in the run of an earlier
   * event of its line without a claim of its own: its attempt is recorded here, whole.
   */
  attempt: number | null;
  /** What its change did, or why it failed, having changed nothing. */
  outcome: Result<EventResult, EventError>;
  notifyOnFinish: boolean;
}

/**
 * Inside the transaction that applied the changes, in one statement whatever their
 * number: each event succeeded, or failed for a reason of its own, with its attempt
 * (heads close the one their claim opened and any left open by a dead worker; followers
 * get one, opened and closed now); each leaves its lines; callers waiting on an event are
 * notified (on commit). Throws, so that the transaction rolls back, if an event was not
 * in the state this worker saw. The ids' bounds limit it to their partitions (id-bounds.ts).
 */
export async function recordApplied(tx: Tx, applied: AppliedEvent[]): Promise<void> {
  if (applied.length === 0) return;
  const ids = applied.map((event) => event.eventId);
  const attempts = applied.map((event) => event.attempt);
  const results = applied.map(({ outcome }) => (outcome.ok ? JSON.stringify(outcome.value) : null));
  const errors = applied.map(({ outcome }) => (outcome.ok ? null : JSON.stringify(outcome.error)));
  const notify = applied.map((event) => event.notifyOnFinish);
  const [lowest, highest] = idBounds(ids);
  const [outcome] = await tx.$queryRaw<Array<{ finished: number }>>`
    WITH done AS (
      SELECT d.*, CASE WHEN d.error IS NULL THEN 'succeeded' ELSE 'failed' END AS outcome
      FROM unnest(${ids}::uuid[], ${attempts}::int[], ${results}::text[]::jsonb[],
                  ${errors}::text[]::jsonb[], ${notify}::boolean[])
           AS d(event_id, attempt, result, error, notify)
    ),
    finished AS (
      UPDATE webhook_logs w
      SET status = d.outcome, result = d.result, error = d.error, finished_at = now(),
          started_at = COALESCE(w.started_at, now()),
          attempts = w.attempts + CASE WHEN d.attempt IS NULL THEN 1 ELSE 0 END
      FROM done d
      WHERE w.id = d.event_id AND w.id BETWEEN ${lowest}::uuid AND ${highest}::uuid
        AND w.status = CASE WHEN d.attempt IS NULL THEN 'queued' ELSE 'processing' END
      RETURNING w.id, w.account_id, w.order_keys, w.sequence, w.attempts, d.attempt,
                d.outcome, d.error
    ),
    attempts_closed AS (
      UPDATE event_attempts a
      SET outcome = CASE WHEN a.number = d.attempt THEN d.outcome ELSE 'interrupted' END,
          error = CASE WHEN a.number = d.attempt THEN d.error END,
          finished_at = now()
      FROM done d
      WHERE a.event_id = d.event_id AND a.event_id BETWEEN ${lowest}::uuid AND ${highest}::uuid
        AND (a.number = d.attempt OR a.finished_at IS NULL)
    ),
    follower_attempts AS (
      INSERT INTO event_attempts (event_id, number, started_at, finished_at, outcome, error)
      SELECT f.id, f.attempts, now(), now(), f.outcome, f.error
      FROM finished f WHERE f.attempt IS NULL
    ),
    places AS MATERIALIZED (${Prisma.raw(LEFT_PLACES('finished'))}),
    left_lines AS (${Prisma.raw(DELETE_PLACES('places'))}),
    notified AS (
      SELECT pg_notify(${EVENT_FINISHED_CHANNEL}, d.event_id::text) FROM done d WHERE d.notify
    )
    SELECT (SELECT count(*)::int FROM finished) AS finished,
           (SELECT count(*)::int FROM notified) AS notified`;
  if (outcome?.finished !== applied.length) {
    throw new Error(
      `recorded ${outcome?.finished ?? 0} of ${applied.length} applied events: one changed state meanwhile`,
    );
  }
}
