import {
  ACCOUNT_PAGE_LIST_LIMIT,
  ACCOUNT_PAGE_SHARE_CHANGES,
  AppError,
  type AccountPage,
} from '@ingest/contracts';
import { effectiveRetentionDays } from '@ingest/event-log';
import type { ApiDeps } from '../../deps.js';
import { retentionPolicyOf } from '../account-retention.js';
import { accountActivity } from './account-activity.js';
import { accountByRef } from './account-ref.js';
import { listAllEndpoints } from './deliveries.js';

type Deps = Pick<ApiDeps, 'db' | 'config' | 'deliveryQueue' | 'logger'>;

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

/**
 * Its queued and processing events and the age of its oldest queued one: read through the
 * partial index of unfinished events, as the backlog by account is.
 */
async function backlogOf(deps: Deps, accountId: string): Promise<AccountPage['backlog']> {
  const [row] = await deps.db.prisma.$queryRaw<
    Array<{ queued: number; processing: number; oldest: number | null }>
  >`
    SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued,
           count(*) FILTER (WHERE status = 'processing')::int AS processing,
           extract(epoch FROM clock_timestamp() - min(received_at) FILTER (WHERE status = 'queued'))::float8 AS oldest
    FROM webhook_logs
    WHERE status IN ('queued', 'processing') AND account_id = ${accountId}::uuid`;
  return {
    queued: row?.queued ?? 0,
    processing: row?.processing ?? 0,
    oldestWaitingAgeSeconds: row?.oldest == null ? null : Math.max(0, row.oldest),
  };
}

async function shareChangesOf(deps: Deps, accountId: string) {
  const rows = await deps.db.prisma.accountShareChange.findMany({
    where: { accountId },
    orderBy: [{ changedAt: 'desc' }, { id: 'desc' }],
    take: ACCOUNT_PAGE_SHARE_CHANGES,
  });
  return rows.map((row) => ({
    id: row.id,
    changedAt: row.changedAt.toISOString(),
    operator: { id: row.operatorId, email: row.operatorEmail },
    from: { weight: row.fromWeight, maxInFlight: row.fromMaxInFlight },
    to: { weight: row.toWeight, maxInFlight: row.toMaxInFlight },
  }));
}

/** Its keys as listed: only columns that are not secret are read at all. */
async function apiKeysOf(deps: Deps, accountId: string): Promise<AccountPage['apiKeys']> {
  const keys = await deps.db.prisma.apiKey.findMany({
    where: { accountId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: ACCOUNT_PAGE_LIST_LIMIT,
    select: {
      id: true,
      name: true,
      scopes: true,
      prefix: true,
      createdAt: true,
      expiresAt: true,
      lastUsedAt: true,
      revokedAt: true,
      requireSignature: true,
    },
  });
  return keys.map((key) => ({
    ...key,
    createdAt: key.createdAt.toISOString(),
    expiresAt: iso(key.expiresAt),
    lastUsedAt: iso(key.lastUsedAt),
    revokedAt: iso(key.revokedAt),
  }));
}

/**
 * One account as an operator looks into it, by id or handle: its backlog, share and who
 * changed it, retention, keys, endpoints and what became of its recent events. Read from
 * the primary, so that a share just changed shows with its audit row.
 */
export async function accountPage(deps: Deps, ref: string): Promise<AccountPage> {
  const account = await deps.db.prisma.account.findUnique({
    where: accountByRef(ref),
    select: {
      id: true,
      handle: true,
      email: true,
      createdAt: true,
      queueWeight: true,
      maxInFlight: true,
      retentionDays: true,
    },
  });
  if (account === null) throw new AppError('NOT_FOUND', 'No account with this id or handle');
  const [backlog, shareChanges, apiKeys, endpoints, activity] = await Promise.all([
    backlogOf(deps, account.id),
    shareChangesOf(deps, account.id),
    apiKeysOf(deps, account.id),
    listAllEndpoints(deps, { accountId: account.id, limit: ACCOUNT_PAGE_LIST_LIMIT }),
    accountActivity(deps, account.id),
  ]);
  return {
    id: account.id,
    handle: account.handle,
    email: account.email,
    createdAt: account.createdAt.toISOString(),
    backlog,
    share: { weight: account.queueWeight, maxInFlight: account.maxInFlight },
    retention: {
      days: account.retentionDays,
      effectiveDays: effectiveRetentionDays(
        retentionPolicyOf(deps.config.eventLog),
        account.retentionDays,
      ),
    },
    rateLimits: {
      contentPerMinute: deps.config.limits.contentPerAccountPerMinute * account.queueWeight,
      receiptsPerMinute: deps.config.limits.receiptsPerAccountPerMinute * account.queueWeight,
    },
    shareChanges,
    apiKeys,
    endpoints: endpoints.items,
    activity,
  };
}
