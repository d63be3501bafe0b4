import { AppError, HISTORY_WINDOWS, type History, type HistoryQuery } from '@ingest/contracts';
import { REFUSAL_REASONS } from '@ingest/fairness';
import { readHistory } from '@ingest/queue';
import type { ApiDeps } from '../../deps.js';
import { accountByRef } from './account-ref.js';

type Deps = Pick<ApiDeps, 'db' | 'redis' | 'config'>;

/** The account a handle or an id names; 404 NOT_FOUND when none does. */
async function accountIdOf(deps: Deps, account: string): Promise<string> {
  const found = await deps.db.prisma.account.findUnique({
    where: accountByRef(account),
    select: { id: true },
  });
  if (found === null) throw new AppError('NOT_FOUND', 'No account with this handle or id');
  return found.id;
}

/**
 * The service's history, or one account's, over the last hour or day: what was counted
 * each minute (minute-history.ts in @ingest/queue), in buckets of the window.
 */
export async function history(deps: Deps, query: HistoryQuery): Promise<History> {
  const accountId = query.account === undefined ? null : await accountIdOf(deps, query.account);
  const { buckets, bucketMinutes } = HISTORY_WINDOWS[query.window];
  const read = await readHistory(deps.redis, deps.config.redis.keyPrefix, {
    buckets,
    bucketMinutes,
    reasons: REFUSAL_REASONS,
    ...(accountId === null ? {} : { accountId }),
  });
  const byReason = Object.fromEntries(
    REFUSAL_REASONS.map((reason) => [reason, read.refusedByReason[reason] ?? 0]),
  ) as History['refusedByReason'];
  return {
    window: query.window,
    bucketSeconds: bucketMinutes * 60,
    accountId,
    points: read.points.map(({ start, ...counts }) => ({
      start: new Date(start).toISOString(),
      ...counts,
    })),
    refusedByReason: byReason,
  };
}
