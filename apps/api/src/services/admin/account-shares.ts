import { AppError, type AccountBacklogList, type AccountShare } from '@ingest/contracts';
import { v7 as uuidv7 } from 'uuid';
import type { ApiDeps } from '../../deps.js';

type Deps = Pick<ApiDeps, 'db' | 'shares'>;

/**
 * The accounts with the most unfinished events, most first: queued and processing counts,
 * the age of the oldest queued one, and each account's share. One pass over the partial
 * index of unfinished events (no per-account index is kept for this: it would cost every
 * write of the log), so its cost grows with the backlog: about what a count of it costs.
 */
export async function accountBacklogs(deps: Deps, limit: number): Promise<AccountBacklogList> {
  const rows = await deps.db.prisma.$queryRaw<
    Array<{
      accountId: string;
      handle: string;
      queued: number;
      processing: number;
      oldestWaitingAgeSeconds: number | null;
      weight: number;
      maxInFlight: number | null;
    }>
  >`
    WITH backlog AS (
      SELECT account_id,
             count(*) FILTER (WHERE status = 'queued')::int AS queued,
             count(*) FILTER (WHERE status = 'processing')::int AS processing,
             min(received_at) FILTER (WHERE status = 'queued') AS oldest
      FROM webhook_logs
      WHERE status IN ('queued', 'processing')
      GROUP BY account_id
      ORDER BY count(*) DESC
      LIMIT ${limit}
    )
    SELECT b.account_id AS "accountId", a.handle, b.queued, b.processing,
           extract(epoch FROM clock_timestamp() - b.oldest)::float8 AS "oldestWaitingAgeSeconds",
           a.queue_weight AS weight, a.max_in_flight AS "maxInFlight"
    FROM backlog b JOIN accounts a ON a.id = b.account_id
    ORDER BY b.queued + b.processing DESC, b.account_id`;
  return {
    accounts: rows.map(({ weight, maxInFlight, oldestWaitingAgeSeconds, ...row }) => ({
      ...row,
      oldestWaitingAgeSeconds:
        oldestWaitingAgeSeconds === null ? null : Math.max(0, oldestWaitingAgeSeconds),
      share: { weight, maxInFlight },
    })),
  };
}

export async function accountShare(deps: Deps, accountId: string): Promise<AccountShare> {
  const account = await deps.db.prisma.account.findUnique({
    where: { id: accountId },
    select: { queueWeight: true, maxInFlight: true },
  });
  if (account === null) throw new AppError('NOT_FOUND', 'No account with this id');
  return { weight: account.queueWeight, maxInFlight: account.maxInFlight };
}

/**
 * Sets an account's share and records who changed it, from what to what, in one
 * transaction. This API instance applies it at once; the others and the workers within
 * the share book's refresh (5 s).
 */
export async function setAccountShare(
  deps: Deps,
  accountId: string,
  share: AccountShare,
  operatorId: string,
): Promise<AccountShare> {
  await deps.db.prisma.$transaction(async (tx) => {
    // Locked: two operators changing one share at once each record what they replaced.
    const [before] = await tx.$queryRaw<Array<{ weight: number; maxInFlight: number | null }>>`
      SELECT queue_weight AS weight, max_in_flight AS "maxInFlight"
      FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
    if (before === undefined) throw new AppError('NOT_FOUND', 'No account with this id');
    const operator = await tx.account.findUniqueOrThrow({
      where: { id: operatorId },
      select: { email: true },
    });
    await tx.account.update({
      where: { id: accountId },
      data: { queueWeight: share.weight, maxInFlight: share.maxInFlight },
    });
    await tx.accountShareChange.create({
      data: {
        id: uuidv7(),
        accountId,
        operatorId,
        operatorEmail: operator.email,
        fromWeight: before.weight,
        fromMaxInFlight: before.maxInFlight,
        toWeight: share.weight,
        toMaxInFlight: share.maxInFlight,
      },
    });
  });
  await deps.shares.refresh();
  return share;
}
