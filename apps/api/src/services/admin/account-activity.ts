import {
  ACCOUNT_PAGE_EVENTS_READ,
  DAY_MS,
  HOUR_MS,
  type AccountActivity,
  type AccountErrorCount,
  type AccountEventCounts,
} from '@ingest/contracts';
import { idBoundaryAt } from '@ingest/event-log';
import type { ApiDeps } from '../../deps.js';
import { CLOCK_MARGIN_MS } from './newest-first.js';

interface Group {
  status: string;
  code: string | null;
  lastHour: number;
  lastDay: number;
}

/**
 * The account's events received in the last 24 hours, grouped by status and error code,
 * each group counted for the last hour and the whole day. One statement reads the newest
 * ACCOUNT_PAGE_EVENTS_READ of them at most, newest first through the (account, received_at)
 * index, and only in the partitions the day's ids fall in.
 */
async function groups(deps: Pick<ApiDeps, 'db'>, accountId: string, now: number): Promise<Group[]> {
  return deps.db.prisma.$queryRaw<Group[]>`
    SELECT status, error ->> 'code' AS code,
           count(*) FILTER (WHERE received_at >= ${new Date(now - HOUR_MS)})::int AS "lastHour",
           count(*)::int AS "lastDay"
    FROM (
      SELECT status, error, received_at FROM webhook_logs
      WHERE account_id = ${accountId}::uuid
        AND received_at >= ${new Date(now - DAY_MS)}
        AND id >= ${idBoundaryAt(now - DAY_MS - CLOCK_MARGIN_MS)}::uuid
      ORDER BY received_at DESC, id DESC
      LIMIT ${ACCOUNT_PAGE_EVENTS_READ}
    ) AS recent
    GROUP BY status, code`;
}

function totals(rows: Group[], window: 'lastHour' | 'lastDay'): AccountEventCounts {
  const of = (status: string) =>
    rows.filter((row) => row.status === status).reduce((sum, row) => sum + row[window], 0);
  const all = rows.reduce((sum, row) => sum + row[window], 0);
  const rejected = of('rejected');
  return { accepted: all - rejected, applied: of('succeeded'), failed: of('failed'), rejected };
}

/** The error codes of one status, the most in the last day first. */
function byCode(rows: Group[], status: string): AccountErrorCount[] {
  return rows
    .filter((row) => row.status === status)
    .map(({ code, lastHour, lastDay }) => ({ code: code ?? 'UNKNOWN', lastHour, lastDay }))
    .sort((a, b) => b.lastDay - a.lastDay || a.code.localeCompare(b.code));
}

/** What became of the account's events of the last hour and day, from the event log. */
export async function accountActivity(
  deps: Pick<ApiDeps, 'db'>,
  accountId: string,
): Promise<AccountActivity> {
  const rows = await groups(deps, accountId, Date.now());
  const read = rows.reduce((sum, row) => sum + row.lastDay, 0);
  return {
    lastHour: totals(rows, 'lastHour'),
    lastDay: totals(rows, 'lastDay'),
    failures: byCode(rows, 'failed'),
    refusals: byCode(rows, 'rejected'),
    capped: read >= ACCOUNT_PAGE_EVENTS_READ,
  };
}
