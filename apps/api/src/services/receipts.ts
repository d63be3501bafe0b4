import {
  AppError,
  type EventError,
  type EventResult,
  type EventStatus,
  type Receipt,
  type ReceiptListQuery,
} from '@ingest/contracts';
import { mayHaveAgedOut } from '@ingest/event-log';
import type { ApiDeps } from '../deps.js';
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
 * An id the log does not hold, made before the retention cut-off, is 410: the event, if
 * there was one, has aged out. Decided from the id's time alone, so the answer
 * is the same whoever's event it was.
 */
export async function getReceipt(deps: Deps, accountId: string, id: string): Promise<Receipt> {
  const row = await deps.db.prisma.webhookLog.findFirst({
    where: { id, accountId },
    select: RECEIPT_FIELDS,
  });
  if (row !== null) return presentReceipt(row);
  const { retentionDays } = deps.config.eventLog;
  if (mayHaveAgedOut(id, retentionDays)) {
    throw new AppError(
      'EVENT_EXPIRED',
      `Events are kept ${retentionDays} days; this one, if it existed, has aged out`,
    );
  }
  throw new AppError('NOT_FOUND', 'No event with this id');
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
