import type { EventSearchFilters, EventSearchQuery, OperatorEvent } from '@ingest/contracts';
import { Prisma } from '@ingest/db';
import { idBoundaryAt, rangesWithoutKey, type IdRange } from '@ingest/event-log';
import type { ApiDeps } from '../../deps.js';
import { accountCondition } from './account-ref.js';
import { decodeCursor, toPage, type Position } from '../pagination.js';
import { countMatches } from './event-count.js';
import { readEveryPartition } from './every-partition.js';
import { presentReceipt, type ReceiptRow } from '../receipts.js';
import {
  CLOCK_MARGIN_MS,
  idWindows,
  newestFirst,
  pageSettled,
  type IdWindow,
} from './newest-first.js';

type Deps = Pick<ApiDeps, 'db' | 'config'>;

export interface OperatorEventRow extends ReceiptRow {
  accountId: string;
  apiKeyId: string | null;
  requestId: string;
}

/** Who an operator event is from, by name: the account's handle and the key's name. */
export interface Names {
  handles: ReadonlyMap<string, string>;
  keyNames: ReadonlyMap<string, string>;
}

/** The handles and key names of a page of events: two indexed reads, whatever its size. */
export async function namesOf(
  deps: Pick<ApiDeps, 'db'>,
  rows: ReadonlyArray<Pick<OperatorEventRow, 'accountId' | 'apiKeyId'>>,
): Promise<Names> {
  const accountIds = [...new Set(rows.map((row) => row.accountId))];
  const keyIds = [...new Set(rows.flatMap((row) => (row.apiKeyId === null ? [] : [row.apiKeyId])))];
  const [accounts, keys] = await Promise.all([
    accountIds.length === 0
      ? []
      : deps.db.prisma.account.findMany({
          where: { id: { in: accountIds } },
          select: { id: true, handle: true },
        }),
    keyIds.length === 0
      ? []
      : deps.db.prisma.apiKey.findMany({
          where: { id: { in: keyIds } },
          select: { id: true, name: true },
        }),
  ]);
  return {
    handles: new Map(accounts.map(({ id, handle }) => [id, handle])),
    keyNames: new Map(keys.map(({ id, name }) => [id, name])),
  };
}

export const OPERATOR_EVENT_COLUMNS = Prisma.sql`
  id, event, status, attempts, received_at AS "receivedAt", started_at AS "startedAt",
  finished_at AS "finishedAt", result, error, account_id AS "accountId", api_key_id AS "apiKeyId",
  request_id AS "requestId", replays, last_replayed_at AS "lastReplayedAt"`;

export const presentOperatorEvent = (row: OperatorEventRow, names: Names): OperatorEvent => ({
  ...presentReceipt(row),
  accountId: row.accountId,
  accountHandle: names.handles.get(row.accountId) ?? null,
  apiKeyId: row.apiKeyId,
  apiKeyName: row.apiKeyId === null ? null : (names.keyNames.get(row.apiKeyId) ?? null),
  requestId: row.requestId,
});

/**
 * A time bound restated on the id, which the log is partitioned by: PostgreSQL then skips
 * the partitions outside it instead of asking each one's index (UUIDv7 ids carry time).
 */
const idsFrom = (ms: number) => Prisma.sql`id >= ${idBoundaryAt(ms)}::uuid`;
const idsBefore = (ms: number) => Prisma.sql`id < ${idBoundaryAt(ms)}::uuid`;

/**
 * The WHERE clause of a search. Written in SQL so that each filter uses its index: the
 * slug and payload filters need the containment operator (`@>`) for their GIN indexes,
 * which Prisma's `has` and JSON filters do not produce.
 */
export function searchConditions(filters: EventSearchFilters): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filters.status !== undefined) conditions.push(Prisma.sql`status = ${filters.status}`);
  if (filters.event !== undefined) conditions.push(Prisma.sql`event = ${filters.event}`);
  if (filters.accountId !== undefined) conditions.push(accountCondition(filters.accountId));
  if (filters.apiKeyId !== undefined)
    conditions.push(Prisma.sql`api_key_id = ${filters.apiKeyId}::uuid`);
  if (filters.slug !== undefined)
    conditions.push(Prisma.sql`order_keys @> ARRAY[${filters.slug}]::text[]`);
  if (filters.error !== undefined) conditions.push(Prisma.sql`error ->> 'code' = ${filters.error}`);
  if (filters.from !== undefined) {
    const from = new Date(filters.from);
    conditions.push(Prisma.sql`received_at >= ${from}`, idsFrom(from.getTime() - CLOCK_MARGIN_MS));
  }
  if (filters.to !== undefined) {
    const to = new Date(filters.to);
    conditions.push(Prisma.sql`received_at < ${to}`, idsBefore(to.getTime() + CLOCK_MARGIN_MS));
  }
  // No index of its own, and no bound on the ids (an event fails any time after it came):
  // read through the status index, as the error code is.
  if (filters.failedSince !== undefined) {
    conditions.push(
      Prisma.sql`status = 'failed'`,
      Prisma.sql`finished_at >= ${new Date(filters.failedSince)}`,
    );
  }
  if (filters.payload !== undefined) {
    conditions.push(Prisma.sql`payload @> ${JSON.stringify(filters.payload)}::jsonb`);
  }
  return Prisma.join(conditions, ' AND ');
}

/**
 * How many of the newest events a payload search reads in order before it asks the
 * payload index. PostgreSQL cannot estimate how common a containment match is and
 * always asks the GIN index, which for a common value returns every match of every
 * partition to be sorted. A common value is found among the newest few hundred events; a
 * rare one is not, and then the index, which finds it fast, is asked. 500 events answer a
 * value that at least one event in 20 holds.
 */
const PAYLOAD_PROBE_ROWS = 500;

interface Query {
  filters: EventSearchFilters;
  after: Position | undefined;
  take: number;
  /** Id ranges known to hold no match (partitions whose listed slugs lack the slug). */
  without?: IdRange[];
}

const outside = ({ fromId, toId }: IdRange) =>
  fromId === null
    ? Prisma.sql`id >= ${toId}::uuid`
    : Prisma.sql`(id < ${fromId}::uuid OR id >= ${toId}::uuid)`;

const newestFirstSql = Prisma.sql`ORDER BY received_at DESC, id DESC`;

function matching({ filters, after, without = [] }: Query, window: IdWindow): Prisma.Sql {
  const conditions = [searchConditions(filters), ...without.map(outside)];
  if (after !== undefined) {
    conditions.push(
      Prisma.sql`(received_at, id) < (${after.at}, ${after.id}::uuid)`,
      idsBefore(after.at.getTime() + CLOCK_MARGIN_MS),
    );
  }
  if (window.fromMs !== undefined) conditions.push(idsFrom(window.fromMs));
  if (window.beforeMs !== undefined) conditions.push(idsBefore(window.beforeMs));
  return Prisma.join(conditions, ' AND ');
}

/** The first `take` matches with ids in `window`, newest first, read in index order. */
async function readWindow(deps: Deps, query: Query, window: IdWindow) {
  return deps.db.prisma.$queryRaw<OperatorEventRow[]>`
    SELECT ${OPERATOR_EVENT_COLUMNS} FROM webhook_logs WHERE ${matching(query, window)}
    ${newestFirstSql} LIMIT ${query.take}`;
}

/**
 * The first `take` matches of a slug search, newest first: found through the order-keys
 * GIN index, then sorted. A slug has a handful of events, but PostgreSQL keeps no
 * statistics of single array elements that rare and guesses 0.5% of the log: it would walk
 * the newest-first index filtering every row rather than ask the GIN. Fenced off, the GIN
 * is asked first, then the few found sorted.
 */
const foundBySlug = (query: Query) => Prisma.sql`
  WITH found AS MATERIALIZED (SELECT * FROM webhook_logs WHERE ${matching(query, {})})
  SELECT ${OPERATOR_EVENT_COLUMNS} FROM found ${newestFirstSql} LIMIT ${query.take}`;

/**
 * The first `take` matches of a payload search, newest first, for readEveryPartition's
 * generic plan: the payload index alone finds the events, the other filters then apply to
 * those few. A generic plan knows no value, so it must be left no other choice: offered
 * the status index as well, it combines both and reads every 'succeeded' entry of the
 * partition holding the match.
 */
function foundByPayload(query: Query) {
  const { payload, ...others } = query.filters;
  return Prisma.sql`
    WITH found AS MATERIALIZED (
      SELECT * FROM webhook_logs WHERE payload @> ${JSON.stringify(payload)}::jsonb)
    SELECT ${OPERATOR_EVENT_COLUMNS} FROM found WHERE ${matching({ ...query, filters: others }, {})}
    ${newestFirstSql} LIMIT ${query.take}`;
}

/**
 * The payload matches among the newest PAYLOAD_PROBE_ROWS events, with ids in `window`,
 * that meet the other filters. Those events are a prefix of the search's order within the
 * window, so the first page is theirs when more than a page of them match and the page is
 * settled for the window (pageSettled), as for any window of the newest-first walk.
 */
async function probePayload(deps: Deps, query: Query, window: IdWindow) {
  const { payload, ...others } = query.filters;
  const where = matching({ ...query, filters: others }, window);
  return deps.db.prisma.$queryRaw<OperatorEventRow[]>`
    SELECT ${OPERATOR_EVENT_COLUMNS}
    FROM (SELECT * FROM webhook_logs WHERE ${where} ${newestFirstSql}
          LIMIT ${PAYLOAD_PROBE_ROWS}) AS newest
    WHERE payload @> ${JSON.stringify(payload)}::jsonb
    ${newestFirstSql} LIMIT ${query.take}`;
}

const earliest = (...moments: Array<number | undefined>) => {
  const known = moments.filter((ms) => ms !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
};

/** The rows of a page, and one more if there is a next page: see searchEvents. */
async function readPage(deps: Deps, search: Query, windows: IdWindow[]) {
  const { filters, after } = search;
  const limit = search.take - 1;
  if (filters.slug !== undefined) {
    return deps.db.prisma.$queryRaw<OperatorEventRow[]>(foundBySlug(search));
  }
  if (filters.payload !== undefined) {
    // The newest window only: across every partition, the probe would pay for each one's
    // index even when the newest period holds the page.
    const [newest = {}] = windows;
    const found = await probePayload(deps, search, newest);
    if (found.length > limit && pageSettled(found, limit, newest.fromMs)) return found;
    // Too few matches among the newest events: the value is rare, and the index finds it.
    // Bounded in time (from, to or a cursor), the search plans only the partitions in
    // range. Unbounded, it asks every partition's index (payload values are not listed, as
    // slugs are) through one generic plan made once; only then, because a generic plan
    // cannot tell a narrow time range from a wide one and would read a range by time.
    if (filters.from !== undefined || filters.to !== undefined || after !== undefined) {
      return readWindow(deps, search, {});
    }
    return readEveryPartition<OperatorEventRow>(deps.db.pool, foundByPayload(search));
  }

  let rows: OperatorEventRow[] = [];
  for (const window of windows) {
    rows = [...rows, ...(await readWindow(deps, search, window))]
      .sort(newestFirst)
      .slice(0, search.take);
    if (pageSettled(rows, limit, window.fromMs)) break;
  }
  return rows;
}

/**
 * Events across accounts, newest first, a page at a time; the first page also says how
 * many match (event-count.ts), over the same windows and conditions as its rows.
 *
 * Filters served by a newest-first index (none, status, event, account, key, time) stop
 * reading as soon as a page is found, which is usually in the newest partition: they read
 * through id windows, newest first (newest-first.ts), so the older partitions are not
 * even planned. A payload search probes the newest window's newest events first. Slug
 * searches, and payload values too rare for the probe, are served by GIN indexes, which
 * find every match at once and leave the sorting to the end: windows would only add
 * queries, so they read the log in one query. A slug search first rules out the closed
 * partitions whose listed slugs lack it (key-summaries.ts in @ingest/event-log), so that
 * query plans and probes the partitions of the slug's days and the open ones only.
 */
export async function searchEvents(deps: Deps, query: EventSearchQuery) {
  const { limit, cursor, ...filters } = query;
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const search: Query = { filters, after, take: limit + 1 };
  let windows: IdWindow[] = [{}];
  if (filters.slug !== undefined) {
    search.without = await rangesWithoutKey(deps.db.pool, filters.slug);
  } else {
    const toMs = filters.to === undefined ? undefined : new Date(filters.to).getTime();
    const upperMs = earliest(toMs, after?.at.getTime());
    windows = idWindows(
      deps.config.eventLog.interval,
      Date.now(),
      upperMs === undefined ? undefined : upperMs + CLOCK_MARGIN_MS,
      filters.from === undefined ? undefined : new Date(filters.from).getTime() - CLOCK_MARGIN_MS,
    );
  }
  const [rows, matches] = await Promise.all([
    readPage(deps, search, windows),
    after === undefined
      ? countMatches(
          deps,
          windows.map((window) => matching(search, window)),
        )
      : undefined,
  ]);
  const names = await namesOf(deps, rows);
  const page = toPage(
    rows,
    limit,
    (row) => row.receivedAt,
    (row) => presentOperatorEvent(row, names),
  );
  return matches === undefined ? page : { ...page, matches };
}
