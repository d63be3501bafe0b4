import { DELIVERY_RESPONSE_SHOWN_CHARS } from '@ingest/contracts';
import type { Database, Prisma } from '@ingest/db';
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

type Tx = Prisma.TransactionClient;

/**
 * Records an attempt on its delivery and what it says about the endpoint, in one
 * transaction: a success ends the endpoint's failure streak; a failure starts one (or
 * goes on with it) and disables the endpoint once it is too old; a 410 disables it at
 * once. Returns whether the endpoint was disabled by this attempt.
 */
export async function recordAttempt(db: Database, record: AttemptRecord): Promise<boolean> {
  const { outcome, verdict, at } = record;
  const answered = outcome.kind === 'answered' ? outcome : null;
  return db.prisma.$transaction(async (tx) => {
    const disabledFor = await judgeEndpoint(tx, record);
    // A delivery ends with a success, a 410, its last attempt, or its endpoint disabled.
    const finished = verdict !== 'retry' || record.nextAttemptAt === null || disabledFor !== null;
    const status = verdict === 'succeeded' ? 'succeeded' : finished ? 'failed' : 'pending';
    const error =
      verdict === 'succeeded'
        ? null
        : `${describeOutcome(outcome)}${disabledFor === null ? '' : `; the endpoint is disabled: ${disabledFor}`}`;
    await tx.webhookDelivery.update({
      where: { id: record.deliveryId },
      data: {
        status,
        attempts: { increment: 1 },
        nextAttemptAt: finished ? null : record.nextAttemptAt,
        responseStatus: answered?.status ?? null,
        latencyMs: Math.round(outcome.latencyMs),
        responseBody: answered?.body.slice(0, DELIVERY_RESPONSE_SHOWN_CHARS) ?? null,
        error,
        finishedAt: finished ? at : null,
      },
    });
    return disabledFor !== null;
  });
}

/**
 * What the attempt says about its endpoint: a success ends the failure streak; a failure
 * starts one or goes on with it. Returns why the endpoint is disabled by this attempt (a
 * 410, or a streak older than WEBHOOK_DISABLE_AFTER_DAYS), or null.
 */
async function judgeEndpoint(tx: Tx, record: AttemptRecord): Promise<string | null> {
  const { verdict, at } = record;
  if (verdict === 'succeeded') {
    await tx.webhookEndpoint.updateMany({
      where: { id: record.endpointId, failingSince: { not: null } },
      data: { failingSince: null },
    });
    return null;
  }
  const [endpoint] = await tx.$queryRaw<Array<{ failingSince: Date; enabled: boolean }>>`
    UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ${at})
    WHERE id = ${record.endpointId}::uuid
    RETURNING failing_since AS "failingSince", enabled`;
  if (endpoint === undefined || !endpoint.enabled) return null;
  const reason =
    verdict === 'gone'
      ? `the receiver answered 410 Gone at ${at.toISOString()}`
      : endpoint.failingSince <= record.disableFailingSince
        ? `every delivery failed since ${endpoint.failingSince.toISOString()} (WEBHOOK_DISABLE_AFTER_DAYS)`
        : null;
  if (reason === null) return null;
  await tx.webhookEndpoint.update({
    where: { id: record.endpointId },
    data: { enabled: false, disabledReason: reason, disabledAt: at },
  });
  return reason;
}
