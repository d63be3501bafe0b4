import {
  AppError,
  type EventError,
  type EventResult,
  type EventStatus,
  type Receipt,
  type ReceiptListQuery,
} from '@ingest/contracts';
import { DAY_MS, shortestRetentionDays, timeOfId } from '@ingest/event-log';
import type { ApiDeps } from '../deps.js';
import { accountRetentionDays, retentionPolicyOf } from './account-retention.js';
import { rowsAfter, toPage } from './pagination.js';

type Deps = Pick<ApiDeps, 'db' | 'config'>;

const RECEIPT_FIELDS = {
  id: true,
  event: true,
  status: true,
  attempts: true,
  receivedAt: true,
  startedAt: true,
  finishedAt: true,
  result: true,
  error: true,
  replays: true,
  lastReplayedAt: true,
} as const;

export interface ReceiptRow {
  id: string;
  event: string | null;
  status: string;
  attempts: number;
  receivedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  result: unknown;
  error: unknown;
  replays: number;
  lastReplayedAt: Date | null;
}

export const presentReceipt = (row: ReceiptRow): Receipt => ({
  id: row.id,
  event: row.event,
  status: row.status as EventStatus,
  attempts: row.attempts,
  receivedAt: row.receivedAt.toISOString(),
  startedAt: row.startedAt?.toISOString() ?? null,
  finishedAt: row.finishedAt?.toISOString() ?? null,
  result: (row.result ?? null) as EventResult | null,
  error: (row.error ?? null) as EventError | null,
  replays: row.replays,
  lastReplayedAt: row.lastReplayedAt?.toISOString() ?? null,
});

/**
 * One of the account's events; another account's is answered exactly like a missing one.
 * Past the account's retention (its own, else EVENT_LOG_RETENTION_DAYS) it is 410, whether
 * the log still holds the row (partitions are kept for accounts that keep longer, and
 * deletes go a batch at a time) or not: an event the log holds by its `received_at`; an
 * id it does not hold by the id's time alone, so that answer is the same whoever's event
 * it was, or whether there was one.
 */
export async function getReceipt(deps: Deps, accountId: string, id: string): Promise<Receipt> {
  const row = await deps.db.prisma.webhookLog.findFirst({
    where: { id, accountId },
    select: RECEIPT_FIELDS,
  });
  const madeAt = row === null ? timeOfId(id) : row.receivedAt.getTime();
  const keptDays = madeAt === undefined ? 0 : await agedOutUnder(deps, accountId, madeAt);
  if (keptDays > 0) {
    throw new AppError(
      'EVENT_EXPIRED',
      row === null
        ? `Events are kept ${keptDays} days; this one, if it existed, has aged out`
        : `Events are kept ${keptDays} days; this one has aged out`,
    );
  }
  if (row !== null) return presentReceipt(row);
  throw new AppError('NOT_FOUND', 'No event with this id');
}

/**
 * The account's retention in days when `madeAt` is past it, else 0. The account is read
 * only for a moment older than the shortest retention any account can have, so a
 * receipt of a recent event (nearly all of them) costs no more than before.
 */
async function agedOutUnder(deps: Deps, accountId: string, madeAt: number): Promise<number> {
  const now = Date.now();
  const shortest = shortestRetentionDays(retentionPolicyOf(deps.config.eventLog));
  if (shortest === 0 || madeAt >= now - shortest * DAY_MS) return 0;
  const days = (await accountRetentionDays(deps, accountId)) ?? 0;
  return days > 0 && madeAt < now - days * DAY_MS ? days : 0;
}

/** The account's events, newest first, a page at a time. */
export async function listReceipts(
  deps: Deps,
  accountId: string,
  query: ReceiptListQuery,
): Promise<{ items: Receipt[]; nextCursor: string | null }> {
  const rows = await deps.db.prisma.webhookLog.findMany({
    where: {
      accountId,
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.event === undefined ? {} : { event: query.event }),
      ...rowsAfter(query.cursor, 'receivedAt'),
    },
    orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
    select: RECEIPT_FIELDS,
  });
  return toPage(rows, query.limit, (row) => row.receivedAt, presentReceipt);
}
