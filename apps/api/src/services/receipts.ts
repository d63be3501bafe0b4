import {
  AppError,
  type EventError,
  type EventResult,
  type EventStatus,
  type Receipt,
  type ReceiptListQuery,
} from '@ingest/contracts';
import type { ApiDeps } from '../deps.js';

type Deps = Pick<ApiDeps, 'db'>;

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
} as const;

interface ReceiptRow {
  id: string;
  event: string | null;
  status: string;
  attempts: number;
  receivedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  result: unknown;
  error: unknown;
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
});

/** One of the account's events; another account's is answered exactly like a missing one. */
export async function getReceipt(deps: Deps, accountId: string, id: string): Promise<Receipt> {
  const row = await deps.db.prisma.webhookLog.findFirst({
    where: { id, accountId },
    select: RECEIPT_FIELDS,
  });
  if (row === null) throw new AppError('NOT_FOUND', 'No event with this id');
  return presentReceipt(row);
}

// Cursors are opaque to clients: the position (receivedAt, id) of the last item seen.
const encodeCursor = (row: ReceiptRow): string =>
  Buffer.from(`${row.receivedAt.toISOString()}|${row.id}`).toString('base64url');

function decodeCursor(cursor: string): { receivedAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const receivedAt = new Date(at ?? '');
  if (id === undefined || !/^[0-9a-f-]{36}$/.test(id) || Number.isNaN(receivedAt.getTime())) {
    throw new AppError('VALIDATION_FAILED', 'The cursor is not one this API gave out', {
      errors: [{ path: 'query.cursor', message: 'is not a cursor from a previous page' }],
    });
  }
  return { receivedAt, id };
}

/** The account's events, newest first, a page at a time. */
export async function listReceipts(
  deps: Deps,
  accountId: string,
  query: ReceiptListQuery,
): Promise<{ items: Receipt[]; nextCursor: string | null }> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await deps.db.prisma.webhookLog.findMany({
    where: {
      accountId,
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.event === undefined ? {} : { event: query.event }),
      ...(after === undefined
        ? {}
        : {
            OR: [
              { receivedAt: { lt: after.receivedAt } },
              { receivedAt: after.receivedAt, id: { lt: after.id } },
            ],
          }),
    },
    orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
    select: RECEIPT_FIELDS,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(presentReceipt),
    nextCursor: rows.length > query.limit && last !== undefined ? encodeCursor(last) : null,
  };
}
