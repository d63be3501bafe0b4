import type { EventError } from '@ingest/contracts';
import type { Queryable } from './queryable.js';
import { DELETE_PLACES, LEFT_PLACES } from './places.js';
import { EVENT_FINISHED_CHANNEL, unfinished } from './status.js';

export interface FailedAttempt {
  eventId: string;
  attempt: number;
  error: EventError;
  /**
   * The event failed for good (its own fault, or out of attempts): it is finished, leaves
   * its lines, and a waiting caller is told. Otherwise it goes back to `queued`, keeping
   * its places, and shows why the attempt failed while it waits for its retry.
   */
  final: boolean;
  notifyOnFinish: boolean;
}

/**
 * Records a failed attempt in one statement. Returns true when the event left its lines
 * (a final failure that this call recorded): the caller then wakes the next in line.
 */
export async function recordFailure(on: Queryable, failure: FailedAttempt): Promise<boolean> {
  const { rows } = await on.query<{ left: boolean }>({
    name: 'record-failure',
    text: `
      WITH failed AS (
        UPDATE webhook_logs
        SET status = CASE WHEN $4 THEN 'failed' ELSE 'queued' END, error = $3::jsonb,
            finished_at = CASE WHEN $4 THEN now() END
        WHERE id = $1::uuid AND ${unfinished()}
        RETURNING id, account_id, order_keys, sequence
      ),
      attempt_closed AS (
        UPDATE event_attempts
        SET outcome = CASE WHEN $4 THEN 'failed' ELSE 'retrying' END, error = $3::jsonb,
            finished_at = now()
        WHERE event_id = $1::uuid AND number = $2
      ),
      others_interrupted AS (
        -- Attempts still open when the event ends never reported back: their worker died.
        UPDATE event_attempts SET outcome = 'interrupted', finished_at = now()
        WHERE $4 AND event_id = $1::uuid AND finished_at IS NULL AND number <> $2
      ),
      places AS MATERIALIZED (${LEFT_PLACES('failed')} WHERE $4),
      left_lines AS (${DELETE_PLACES('places')}),
      notified AS (
        SELECT pg_notify('${EVENT_FINISHED_CHANNEL}', $1::text) FROM failed WHERE $4 AND $5
      )
      SELECT (SELECT count(*) FROM failed) > 0 AND $4 AS left,
             (SELECT count(*) FROM notified) AS notified`,
    values: [
      failure.eventId,
      failure.attempt,
      JSON.stringify(failure.error),
      failure.final,
      failure.notifyOnFinish,
    ],
  });
  return rows[0]?.left === true;
}

/** This attempt found its event already finished by another run: it changed nothing. */
export async function recordDuplicate(
  on: Queryable,
  eventId: string,
  attempt: number,
): Promise<void> {
  await on.query({
    name: 'record-duplicate',
    text: `UPDATE event_attempts SET outcome = 'duplicate', finished_at = now()
           WHERE event_id = $1::uuid AND number = $2`,
    values: [eventId, attempt],
  });
}
