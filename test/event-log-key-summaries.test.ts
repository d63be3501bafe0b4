// A slug search rules out the closed partitions whose listed slugs lack its slug
// (packages/event-log/src/partitions/key-summaries.ts). It must still find every event
// holding the slug, wherever it is: in a listed partition, in an open one, in one not yet
// listed, or in a partition re-attached under another name over a listed one's range.
// And ruling out must be real: the statement the search sends plans only the partitions
// that may hold the slug.
import type { OperatorEvent } from '@ingest/contracts';
import { searchEvents } from '@ingest/api/event-search';
import { createDatabase, Prisma, type Database } from '@ingest/db';
import {
  DAY_MS,
  idBoundaryAt,
  partitionName,
  rangesWithoutKey,
  summarizeClosedPartitions,
  SUMMARY_SETTLE_MS,
} from '@ingest/event-log';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodesOf, type PlanNode } from './support/query-plans.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { uuidV7At } from './support/uuid-v7-sql.js';

const HISTORY_DAYS = 10;
const BUSY_DAY_SLUGS = 25_000;

let scratch: ScratchDatabase;
let db: Database;
let client: pg.Client;
/** The scratch database's first day (its migration's): day 0 here, the older ones before it. */
let today: number;
const dayName = (ago: number) => partitionName('webhook_logs', today - ago * DAY_MS, 'day');
/**
 * The clock of the maintenance rounds here, fixed: noon of day 0, when day 1's partition
 * has been closed longer than SUMMARY_SETTLE_MS and day 0's is open. Not the wall clock,
 * which may be in the first hour of a day (day 1 not listed yet) or past midnight already.
 */
let roundAt: number;
beforeAll(async () => {
  scratch = await createScratchDatabase({ historyDays: HISTORY_DAYS });
  today = scratch.today;
  roundAt = today + DAY_MS / 2;
  db = createDatabase({ url: scratch.url, poolSize: 2 });
  client = await scratch.connect();
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
     VALUES (gen_random_uuid(), 'summaries@example.test', 'summaries', 'Summaries', 'unused', now())
     RETURNING id`,
  );
  // Per day `ago` (0 is `today`), at noon of that day: events with the slugs listed. Twenty
  // fillers a day make each listed partition hold other slugs too.
  const slugsByDay: Array<[number, string[]]> = [
    [5, ['only-old', 'only-old']],
    [3, ['old-and-today']],
    [0, ['old-and-today', 'today-only']],
    ...Array.from({ length: HISTORY_DAYS }, (_, ago): [number, string[]] => [ago, ['everywhere']]),
    ...Array.from({ length: HISTORY_DAYS }, (_, ago): [number, string[]] => [
      ago,
      Array.from({ length: 20 }, (_, n) => `filler-${ago}-${n}`),
    ]),
  ];
  for (const [ago, slugs] of slugsByDay) {
    const at = today - ago * DAY_MS + DAY_MS / 2;
    await client.query(
      `INSERT INTO webhook_logs
         (id, account_id, event, payload, request_id, status, order_keys, received_at)
       SELECT ${uuidV7At('$2::timestamptz')}, $1::uuid, 'article.update',
              jsonb_build_object('slug', s.slug), 'request', 'succeeded', ARRAY[s.slug], $2
       FROM unnest($3::text[]) AS s(slug)`,
      [rows[0]!.id, new Date(at), slugs],
    );
  }
  // A busy day: 25,000 slugs of their own, more than a round clears of a dropped list.
  await client.query(
    `INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, order_keys, received_at)
     SELECT ${uuidV7At('$2::timestamptz')}, $1::uuid, 'article.create', '{}', 'request', 'succeeded',
            ARRAY['busy-' || n], $2
     FROM generate_series(1, $3::int) AS n`,
    [rows[0]!.id, new Date(today - 8 * DAY_MS + DAY_MS / 2), BUSY_DAY_SLUGS],
  );
}, 60_000);
afterAll(async () => {
  await client?.end();
  await db?.close();
  await scratch?.drop();
});

const deps = () => ({ db, config: { eventLog: { interval: 'day' } } }) as never;

/** Every event the search finds for `slug`, as ids, sorted. */
async function searched(slug: string): Promise<string[]> {
  const page: { items: OperatorEvent[]; nextCursor: string | null } = await searchEvents(deps(), {
    slug,
    limit: 100,
  });
  expect(page.nextCursor).toBeNull();
  return page.items.map((event) => event.id).sort();
}

/** Every event holding `slug`, read straight from the log, as ids, sorted. */
async function holding(slug: string): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `SELECT id::text FROM webhook_logs WHERE $1 = ANY(order_keys) ORDER BY id`,
    [slug],
  );
  return rows.map((row) => row.id).sort();
}

const SLUGS = ['only-old', 'old-and-today', 'today-only', 'everywhere', 'filler-7-3', 'nowhere'];

/** The webhook_logs partitions the search's statement for `slug` plans. */
async function partitionsPlanned(slug: string): Promise<string[]> {
  const sent: Prisma.Sql[] = [];
  const prisma = {
    // Called with a statement, or as a tag (the count).
    $queryRaw: async (query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
      sent.push(query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values));
      return [];
    },
  };
  await searchEvents(
    { db: { prisma, pool: db.pool }, config: { eventLog: { interval: 'day' } } } as never,
    {
      slug,
      limit: 20,
    },
  );
  // The page's statement and, on a first page, the count of its matches: both rule out the
  // same partitions.
  expect(sent).toHaveLength(2);
  const [page, count] = await Promise.all(
    sent.map(async (statement) => {
      const [row] = await db.prisma.$queryRaw<Array<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>>(
        Prisma.sql`EXPLAIN (FORMAT JSON) ${statement}`,
      );
      const relations = nodesOf(row!['QUERY PLAN'][0].Plan).flatMap(
        (node) => node['Relation Name'] ?? [],
      );
      return [...new Set(relations)].filter((name) => name.startsWith('webhook_logs_')).sort();
    }),
  );
  expect(count).toEqual(page);
  return page!;
}

describe('slug summaries of closed partitions', () => {
  it('searches find the same events before any partition is listed', async () => {
    for (const slug of SLUGS) expect(await searched(slug), slug).toEqual(await holding(slug));
  });

  it('lists every partition closed an hour ago, once, and not the open ones', async () => {
    const listed = await summarizeClosedPartitions(db.pool, roundAt);
    const { rows } = await client.query<{ name: string; to: string }>(
      `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS to
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'webhook_logs'::regclass`,
    );
    const closedBy = idBoundaryAt(roundAt - SUMMARY_SETTLE_MS);
    const closed = rows
      .filter((row) => /TO \('([0-9a-f-]+)'\)/.exec(row.to)![1]! <= closedBy)
      .map((row) => row.name);
    expect(listed.sort()).toEqual(closed.sort());
    expect(listed).toContain(dayName(1));
    expect(listed).not.toContain(dayName(0));
    expect(await summarizeClosedPartitions(db.pool, roundAt)).toEqual([]);
    const { rows: keys } = await client.query<{ key: string }>(
      `SELECT key FROM webhook_log_partition_keys k JOIN webhook_log_key_summaries s
         ON s.id = k.summary_id WHERE s.partition = $1 ORDER BY key`,
      [dayName(5)],
    );
    expect(keys.map((row) => row.key)).toEqual(
      ['everywhere', 'only-old', ...Array.from({ length: 20 }, (_, n) => `filler-5-${n}`)].sort(),
    );
  });

  it('finds every event holding the slug, wherever it is, once listed', async () => {
    for (const slug of SLUGS) expect(await searched(slug), slug).toEqual(await holding(slug));
    expect(await holding('everywhere')).toHaveLength(HISTORY_DAYS);
    expect(await holding('old-and-today')).toHaveLength(2);
  });

  it('plans only the partitions that may hold the slug', async () => {
    const open = (await partitionsPlanned('nowhere')).filter((name) => name >= dayName(0));
    expect(open).toContain(dayName(0));
    // Every closed partition is listed and lacks it: only the open ones are left.
    expect(await partitionsPlanned('nowhere')).toEqual(open);
    expect(await partitionsPlanned('only-old')).toEqual([dayName(5), ...open].sort());
    expect(await partitionsPlanned('old-and-today')).toEqual([dayName(3), ...open].sort());
    // Ruled out as ranges joined end to end: 9 listed days around day 5 are two conditions.
    const ranges = await rangesWithoutKey(db.pool, 'only-old');
    expect(ranges.length).toBeLessThanOrEqual(2);
    expect(ranges.some((range) => range.toId === idBoundaryAt(today - 5 * DAY_MS))).toBe(true);
  });

  it('does not trust a list once its partition is detached, nor for another partition on its range', async () => {
    const listedName = dayName(5);
    const restoredName = `webhook_logs_r${listedName.slice('webhook_logs_p'.length)}`;
    const from = idBoundaryAt(today - 5 * DAY_MS);
    const to = idBoundaryAt(today - 4 * DAY_MS);
    await client.query(`ALTER TABLE webhook_logs DETACH PARTITION "${listedName}"`);
    expect(await searched('only-old')).toEqual([]);
    // An operator's restore puts the period back under another name, not yet listed; a
    // list left for the old name must not rule its range out.
    await client.query(`ALTER TABLE "${listedName}" RENAME TO "${restoredName}"`);
    await client.query(
      `ALTER TABLE webhook_logs ATTACH PARTITION "${restoredName}" FOR VALUES FROM ('${from}') TO ('${to}')`,
    );
    const { rows: stale } = await client.query(
      `SELECT 1 FROM webhook_log_key_summaries WHERE partition = $1`,
      [listedName],
    );
    expect(stale).toHaveLength(1);
    expect(await searched('only-old')).toEqual(await holding('only-old'));
    expect(await holding('only-old')).toHaveLength(2);
    // The next round forgets the stale list and lists the restored partition.
    expect(await summarizeClosedPartitions(db.pool, roundAt)).toEqual([restoredName]);
    const { rows } = await client.query<{ partition: string }>(
      `SELECT partition FROM webhook_log_key_summaries WHERE partition = ANY($1::text[])`,
      [[listedName, restoredName]],
    );
    expect(rows.map((row) => row.partition)).toEqual([restoredName]);
    expect(await searched('only-old')).toEqual(await holding('only-old'));
    expect(await partitionsPlanned('only-old')).toContain(restoredName);
  });

  it("clears a dropped partition's list a bounded part a round, not in one go", async () => {
    const busy = dayName(8);
    const keysOf = async (name: string) => {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(k.key)::int AS n FROM webhook_log_key_summaries s
         LEFT JOIN webhook_log_partition_keys k ON k.summary_id = s.id WHERE s.partition = $1
         GROUP BY s.id`,
        [name],
      );
      return rows[0]?.n;
    };
    const listed = await keysOf(busy);
    expect(listed).toBe(BUSY_DAY_SLUGS + 21);
    await client.query(`ALTER TABLE webhook_logs DETACH PARTITION "${busy}"`);
    await summarizeClosedPartitions(db.pool, roundAt);
    expect(await keysOf(busy)).toBe(listed! - 20_000);
    expect(await searched('busy-7')).toEqual([]);
    await summarizeClosedPartitions(db.pool, roundAt);
    expect(await keysOf(busy)).toBeUndefined();
    await client.query(`DROP TABLE "${busy}"`);
  });
});
