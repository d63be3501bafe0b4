import type { EventSearchFilters, EventSearchQuery, OperatorEvent } from '@ingest/contracts';
import { Prisma } from '@ingest/db';
import type { ApiDeps } from '../../deps.js';
import { decodeCursor, toPage } from '../pagination.js';
import { presentReceipt, type ReceiptRow } from '../receipts.js';

type Deps = Pick<ApiDeps, 'db'>;

export interface OperatorEventRow extends ReceiptRow {
  accountId: string;
  apiKeyId: string | null;
  requestId: string;
}

export const OPERATOR_EVENT_COLUMNS = Prisma.sql`
  id, event, status, attempts, received_at AS "receivedAt", started_at AS "startedAt",
  finished_at AS "finishedAt", result, error, account_id AS "accountId", api_key_id AS "apiKeyId",
  request_id AS "requestId", replays, last_replayed_at AS "lastReplayedAt"`;

export const presentOperatorEvent = (row: OperatorEventRow): OperatorEvent => ({
  ...presentReceipt(row),
  accountId: row.accountId,
  apiKeyId: row.apiKeyId,
  requestId: row.requestId,
});

/**
 * The WHERE clause of a search. Written in SQL so that each filter uses its index: the
 * slug and payload filters need the containment operator (`@>`) for their GIN indexes,
 * which Prisma's `has` and JSON filters do not produce.
 */
export function searchConditions(filters: EventSearchFilters): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filters.status !== undefined) conditions.push(Prisma.sql`status = ${filters.status}`);
  if (filters.event !== undefined) conditions.push(Prisma.sql`event = ${filters.event}`);
  if (filters.accountId !== undefined)
    conditions.push(Prisma.sql`account_id = ${filters.accountId}::uuid`);
  if (filters.apiKeyId !== undefined)
    conditions.push(Prisma.sql`api_key_id = ${filters.apiKeyId}::uuid`);
  if (filters.slug !== undefined)
    conditions.push(Prisma.sql`order_keys @> ARRAY[${filters.slug}]::text[]`);
  if (filters.from !== undefined)
    conditions.push(Prisma.sql`received_at >= ${new Date(filters.from)}`);
  if (filters.to !== undefined) conditions.push(Prisma.sql`received_at < ${new Date(filters.to)}`);
  if (filters.payload !== undefined) {
    conditions.push(Prisma.sql`payload @> ${JSON.stringify(filters.payload)}::jsonb`);
  }
  return Prisma.join(conditions, ' AND ');
}

/** Events across accounts, newest first, a page at a time. */
export async function searchEvents(deps: Deps, query: EventSearchQuery) {
  const { limit, cursor, ...filters } = query;
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const position =
    after === undefined
      ? Prisma.sql`TRUE`
      : Prisma.sql`(received_at, id) < (${after.at}, ${after.id}::uuid)`;
  const rows = await deps.db.prisma.$queryRaw<OperatorEventRow[]>`
    SELECT ${OPERATOR_EVENT_COLUMNS}
    FROM webhook_logs
    WHERE ${searchConditions(filters)} AND ${position}
    ORDER BY received_at DESC, id DESC
    LIMIT ${limit + 1}`;
  return toPage(rows, limit, (row) => row.receivedAt, presentOperatorEvent);
}
