import type { SharedConfig } from '@ingest/config';
import { AppError, type AccountRetention } from '@ingest/contracts';
import { effectiveRetentionDays, type RetentionPolicy } from '@ingest/event-log';
import type { ApiClients } from '../clients.js';

type Deps = Pick<ApiClients, 'db' | 'config'>;

/** EVENT_LOG_RETENTION_DAYS and the bounds of an account's own, as the event log takes them. */
export const retentionPolicyOf = (eventLog: SharedConfig['eventLog']): RetentionPolicy => ({
  defaultDays: eventLog.retentionDays,
  minDays: eventLog.retentionBounds.minDays,
  maxDays: eventLog.retentionBounds.maxDays,
});

/**
 * The days the log keeps the account's events (0: for ever): its own retention, else the
 * default. Undefined when there is no such account. Read from the primary, so that a
 * retention just set applies at once.
 */
export async function accountRetentionDays(
  deps: Deps,
  accountId: string,
): Promise<number | undefined> {
  const account = await deps.db.prisma.account.findUnique({
    where: { id: accountId },
    select: { retentionDays: true },
  });
  if (account === null) return undefined;
  return effectiveRetentionDays(retentionPolicyOf(deps.config.eventLog), account.retentionDays);
}

/**
 * Sets the account's own retention (null: back to the default) and returns it with the
 * days now in force. Outside the operator's bounds it is 400 naming `days`. Receipts
 * follow at once; the workers' next maintenance round deletes what it no longer keeps,
 * and drops partitions past the longest retention in force.
 */
export async function setAccountRetention(
  deps: Deps,
  accountId: string,
  days: number | null,
): Promise<AccountRetention> {
  const policy = retentionPolicyOf(deps.config.eventLog);
  if (days !== null && (days < policy.minDays || days > policy.maxDays)) {
    const bounds = `from ${policy.minDays} to ${policy.maxDays}`;
    throw new AppError('VALIDATION_FAILED', `The retention must be ${bounds} days, or null`, {
      errors: [
        {
          path: 'days',
          message: `must be ${bounds} (EVENT_LOG_RETENTION_MIN_DAYS to _MAX_DAYS), or null for the default`,
        },
      ],
    });
  }
  const { count } = await deps.db.prisma.account.updateMany({
    where: { id: accountId },
    data: { retentionDays: days },
  });
  if (count === 0) throw new AppError('NOT_FOUND', 'No account with this id');
  return { days, effectiveDays: effectiveRetentionDays(policy, days) };
}
