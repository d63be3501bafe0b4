import { EVENT_COUNT_LIMIT, type EventSearchResult } from '@ingest/contracts';
import type { Prisma } from '@ingest/db';
import type { ApiDeps } from '../../deps.js';

type MatchCount = NonNullable<EventSearchResult['matches']>;

/**
 * How many events match, counted up to EVENT_COUNT_LIMIT. `wheres` are the search's
 * conditions over its id windows, newest first (disjoint, together the range searched),
 * counted in turn until the count passes the bound: a common filter is counted in the
 * newest window, the only one planned. Each query stops once it passes the bound, so a
 * count reads that many matches at most, plus the rows a filter with no index of its own
 * (event, error code) passes over.
 */
export async function countMatches(
  deps: Pick<ApiDeps, 'db'>,
  wheres: Prisma.Sql[],
): Promise<MatchCount> {
  let count = 0;
  for (const where of wheres) {
    const [row] = await deps.db.prisma.$queryRaw<Array<{ events: number }>>`
      SELECT count(*)::int AS events
      FROM (SELECT 1 FROM webhook_logs WHERE ${where}
            LIMIT ${EVENT_COUNT_LIMIT + 1 - count}) AS matched`;
    count += row?.events ?? 0;
    if (count > EVENT_COUNT_LIMIT) return { count: EVENT_COUNT_LIMIT, exact: false };
  }
  return { count, exact: true };
}
