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
  /** An endpoint failing since before this, without a success, is paused (the breaker). */
  pauseFailingSince: Date;
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
 * with it) and pauses the endpoint once it is older than WEBHOOK_BREAKER_AFTER; a 410
 * disables it at once. Returns what this attempt did to the endpoint, if anything.
 */
export async function recordAttempt(
  db: Database,
  record: AttemptRecord,
): Promise<EndpointJudgement | undefined> {
  if (record.verdict === 'succeeded') {
    await recordSuccess(db, record);
    return undefined;
  }
  return recordFailure(db, record);
}

export type EndpointJudgement = 'disabled' | 'paused';

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
 * attempt, or its endpoint disabled; it is held when its endpoint is paused; otherwise it
 * stays pending until `nextAttemptAt`.
 */
async function recordFailure(
  db: Database,
  record: AttemptRecord,
): Promise<EndpointJudgement | undefined> {
  const { verdict, at } = record;
  const [responseStatus, latencyMs, responseBody] = answerFields(record.outcome);
  // $4: a 410, which disables the endpoint; $5: the breaker's bound on its failure streak
  // as it stands under the row lock (its old failing_since).
  const { rows } = await db.pool.query<{ judgement: EndpointJudgement | null }>({
    name: 'record-delivery-failure',
    text: `WITH old AS (
             SELECT id, enabled, paused_at, COALESCE(failing_since, $3::timestamptz) AS since
             FROM webhook_endpoints WHERE id = $2::uuid FOR UPDATE
           ),
           judged AS (
             UPDATE webhook_endpoints e
             SET failing_since = o.since,
                 enabled = o.enabled AND NOT $4::boolean,
                 disabled_reason = CASE WHEN o.enabled AND $4
                   THEN 'the receiver answered 410 Gone at ' || $6::text
                   ELSE e.disabled_reason END,
                 disabled_at = CASE WHEN o.enabled AND $4 THEN $3 ELSE e.disabled_at END,
                 paused_at = CASE WHEN o.enabled AND NOT $4 AND o.paused_at IS NULL
                   AND o.since <= $5::timestamptz THEN $3 ELSE e.paused_at END,
                 paused_reason = CASE WHEN o.enabled AND NOT $4 AND o.paused_at IS NULL
                   AND o.since <= $5 THEN 'every attempt failed since '
                     || to_char(o.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                     || ' (WEBHOOK_BREAKER_AFTER)'
                   ELSE e.paused_reason END
             FROM old o
             WHERE e.id = o.id
             RETURNING CASE WHEN o.enabled AND NOT e.enabled THEN 'disabled'
                            WHEN o.paused_at IS NULL AND e.paused_at IS NOT NULL THEN 'paused'
                       END AS judgement,
                       e.enabled, e.paused_at IS NOT NULL AS paused, e.disabled_reason
           )
           UPDATE webhook_deliveries d
           SET status = CASE WHEN $7::boolean OR NOT j.enabled THEN 'failed'
                             WHEN j.paused THEN 'held' ELSE 'pending' END,
               attempts = d.attempts + 1,
               next_attempt_at = CASE WHEN $7 OR NOT j.enabled OR j.paused
                 THEN NULL ELSE $8::timestamptz END,
               response_status = $9::int, latency_ms = $10::int, response_body = $11::text,
               error = $12::text || CASE WHEN NOT j.enabled
                 THEN '; the endpoint is disabled: ' || j.disabled_reason ELSE '' END,
               finished_at = CASE WHEN $7 OR NOT j.enabled THEN $3 ELSE NULL END
           FROM judged j
           WHERE d.id = $1::uuid
           RETURNING j.judgement`,
    values: [
      record.deliveryId,
      record.endpointId,
      at,
      verdict === 'gone',
      record.pauseFailingSince,
      at.toISOString(),
      verdict !== 'retry' || record.nextAttemptAt === null,
      record.nextAttemptAt,
      responseStatus,
      latencyMs,
      responseBody,
      describeOutcome(record.outcome),
    ],
  });
  return rows[0]?.judgement ?? undefined;
}
