import { DELIVERY_RESPONSE_SHOWN_CHARS } from '@ingest/contracts';
import type { Database } from '@ingest/db';
import type { AttemptOutcome } from '@ingest/webhook-delivery';
import { describeOutcome, type Verdict } from './delivery-verdict.js';

export interface AttemptRecord {
  deliveryId: string;
  endpointId: string;
  outcome: AttemptOutcome;
  verdict: Verdict;
  /** When the next attempt is due; null when this was the last. */
  nextAttemptAt: Date | null;
  /** An endpoint failing since before this, without a success, is disabled. */
  disableFailingSince: Date;
  at: Date;
}

/** What an attempt's answer leaves on its delivery: its status, its duration, the start of its body. */
function answerFields(outcome: AttemptOutcome): [number | null, number, string | null] {
  const answered = outcome.kind === 'answered' ? outcome : null;
  return [
    answered?.status ?? null,
    Math.round(outcome.latencyMs),
    answered?.body.slice(0, DELIVERY_RESPONSE_SHOWN_CHARS) ?? null,
  ];
}

/**
 * Records an attempt on its delivery and what it says about the endpoint, in one statement
 * each way, so atomically and without holding a connection across round trips: a delivery
 * worker runs many attempts at once on a small pool, which interactive transactions would
 * exhaust. A success ends the endpoint's failure streak; a failure starts one (or goes on
 * with it) and disables the endpoint once it is too old; a 410 disables it at once. Returns
 * whether this attempt disabled the endpoint.
 */
export async function recordAttempt(db: Database, record: AttemptRecord): Promise<boolean> {
  if (record.verdict === 'succeeded') {
    await recordSuccess(db, record);
    return false;
  }
  return recordFailure(db, record);
}

async function recordSuccess(db: Database, record: AttemptRecord): Promise<void> {
  await db.pool.query({
    name: 'record-delivery-success',
    text: `WITH streak_ended AS (
             UPDATE webhook_endpoints SET failing_since = NULL
             WHERE id = $2::uuid AND failing_since IS NOT NULL
           )
           UPDATE webhook_deliveries
           SET status = 'succeeded', attempts = attempts + 1, next_attempt_at = NULL,
               response_status = $3, latency_ms = $4, response_body = $5, error = NULL,
               finished_at = $6
           WHERE id = $1::uuid`,
    values: [record.deliveryId, record.endpointId, ...answerFields(record.outcome), record.at],
  });
}

/**
 * The endpoint's row is judged and updated once (its old `failing_since` decides), and
 * the delivery is updated from that judgement. A delivery ends with a 410, its last
 * attempt, or its endpoint disabled; otherwise it stays pending until `nextAttemptAt`.
 */
async function recordFailure(db: Database, record: AttemptRecord): Promise<boolean> {
  const { verdict, at } = record;
  const [responseStatus, latencyMs, responseBody] = answerFields(record.outcome);
  // $4: whether the endpoint is to be disabled, from its failure streak as it stands
  // under the row lock (its old failing_since).
  const { rows } = await db.pool.query<{ disabledNow: boolean }>({
    name: 'record-delivery-failure',
    text: `WITH judged AS (
             UPDATE webhook_endpoints e
             SET failing_since = COALESCE(e.failing_since, $3::timestamptz),
                 enabled = e.enabled AND NOT ($4::boolean OR COALESCE(e.failing_since, $3) <= $5),
                 disabled_reason = CASE
                   WHEN NOT e.enabled THEN e.disabled_reason
                   WHEN $4 THEN 'the receiver answered 410 Gone at ' || $6::text
                   WHEN COALESCE(e.failing_since, $3) <= $5 THEN 'every delivery failed since '
                     || to_char(COALESCE(e.failing_since, $3) AT TIME ZONE 'UTC',
                                'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                     || ' (WEBHOOK_DISABLE_AFTER_DAYS)'
                   ELSE e.disabled_reason END,
                 disabled_at = CASE WHEN e.enabled AND ($4 OR COALESCE(e.failing_since, $3) <= $5)
                   THEN $3 ELSE e.disabled_at END
             WHERE e.id = $2::uuid
             RETURNING NOT e.enabled AND e.disabled_at = $3 AS disabled_now, e.disabled_reason
           )
           UPDATE webhook_deliveries d
           SET status = CASE WHEN $7::boolean OR j.disabled_now THEN 'failed' ELSE 'pending' END,
               attempts = d.attempts + 1,
               next_attempt_at = CASE WHEN $7 OR j.disabled_now THEN NULL ELSE $8::timestamptz END,
               response_status = $9::int, latency_ms = $10::int, response_body = $11::text,
               error = $12::text || CASE WHEN j.disabled_now
                 THEN '; the endpoint is disabled: ' || j.disabled_reason ELSE '' END,
               finished_at = CASE WHEN $7 OR j.disabled_now THEN $3 ELSE NULL END
           FROM judged j
           WHERE d.id = $1::uuid
           RETURNING j.disabled_now AS "disabledNow"`,
    values: [
      record.deliveryId,
      record.endpointId,
      at,
      verdict === 'gone',
      record.disableFailingSince,
      at.toISOString(),
      verdict !== 'retry' || record.nextAttemptAt === null,
      record.nextAttemptAt,
      responseStatus,
      latencyMs,
      responseBody,
      describeOutcome(record.outcome),
    ],
  });
  return rows[0]?.disabledNow ?? false;
}
