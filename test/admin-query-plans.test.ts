// The operators' event search (GET /api/admin/events) is served by indexes: for each
// filter, PostgreSQL's plan for the exact SQL `searchEvents` sends reads the index meant
// for it, not the whole of webhook_logs.
//
// Why a seeded table rather than `SET enable_seqscan = off`: turning seq scans off only
// shows that an index *can* serve a filter; on a table of a few rows the planner rightly
// prefers to read it whole. 50,000 events, about a month of traffic from 200 accounts,
// take a couple of seconds to write and show which plan the planner *would* choose. They
// go into a scratch database of the test's own, so that other test files' rows do not
// sway the plans and these rows do not slow other files down. Payloads are kept short,
// which makes a seq scan look cheaper than with real article bodies: the indexes win
// without help from wide rows.
import type { EventSearchQuery } from '@ingest/contracts';
import { searchEvents } from '@ingest/api/event-search';
import { idWindows } from '@ingest/api/newest-first';
import { encodeCursor } from '@ingest/api/pagination';
import { createDatabase, Prisma, type Database } from '@ingest/db';
import { partitionName } from '@ingest/event-log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodesOf, unpartitioned, type PlanNode } from './support/query-plans.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { uuidV7At } from './support/uuid-v7-sql.js';

const EVENTS = 50_000;
const ACCOUNTS = 200;
const RARE_PAYLOAD = { slug: 'corrections-policy', title: 'Corrections', category: 'Corrections' };

let scratch: ScratchDatabase;
let db: Database;
let account: { id: string; apiKeyId: string; handle: string };
beforeAll(async () => {
  // One event a minute for 50,000 minutes: about 35 days, a partition a day.
  scratch = await createScratchDatabase({ historyDays: 36 });
  db = createDatabase({ url: scratch.url, poolSize: 1 });
  const client = await scratch.connect();
  try {
    await client.query(
      `INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
       SELECT gen_random_uuid(), 'plans' || n || '@example.test', 'plans_' || n,
              'Account ' || n, 'unused', now()
       FROM generate_series(1, $1::int) AS n`,
      [ACCOUNTS],
    );
    await client.query(
      `INSERT INTO api_keys (id, account_id, name, scopes, prefix, key_hash, signing_secret)
       SELECT gen_random_uuid(), id, 'key', '{content:create}', 'sk-plans', sha256(id::text::bytea),
              'whsec_unused'
       FROM accounts`,
    );
    // One event a minute, keys taking turns; the four event names equally often; about
    // 1% failed, 1% rejected, 0.1% queued, the rest succeeded; three events a slug.
    await client.query(
      `INSERT INTO webhook_logs
         (id, account_id, api_key_id, event, payload, request_id, status, order_keys, received_at)
       SELECT ${uuidV7At("now() - ($1::int - i) * interval '1 minute'")}, k.account_id, k.id,
              (ARRAY['article.create', 'article.update', 'article.delete', 'highlight.create'])[1 + i % 4],
              jsonb_build_object('slug', 'slug-' || i / 3, 'title', 'Title ' || i,
                                 'category', 'Category ' || i % 500,
                                 'body', jsonb_build_array('Paragraph ' || i)),
              'request-' || i,
              CASE WHEN i % 100 = 0 THEN 'failed' WHEN i % 100 = 1 THEN 'rejected'
                   WHEN i % 1000 = 2 THEN 'queued' ELSE 'succeeded' END,
              ARRAY['slug-' || i / 3],
              now() - ($1::int - i) * interval '1 minute'
       FROM generate_series(1, $1::int) AS i
       JOIN (SELECT id, account_id, row_number() OVER (ORDER BY id) - 1 AS n FROM api_keys) AS k
         ON k.n = i % $2::int`,
      [EVENTS, ACCOUNTS],
    );
    // What autovacuum does on a live table. VACUUM matters as much as ANALYZE here: the
    // GIN indexes take a bulk insert into their pending list, and until a vacuum merges it
    // the planner prices every GIN search as a read of that whole list.
    await client.query('VACUUM ANALYZE webhook_logs');
    // One event after the statistics were gathered, of a category no other event has: the
    // rare event a containment search is for. A value that one event in 500 holds, like
    // the seeded categories, is estimated from ANALYZE's random sample either as rare (the
    // GIN index is used) or as about 1% of the rows (then walking the newest-first index
    // and filtering finds a page sooner, and the planner does that): a test of one would
    // pass or fail by chance.
    await client.query(
      `INSERT INTO webhook_logs
         (id, account_id, api_key_id, event, payload, request_id, status, order_keys)
       SELECT ${uuidV7At('now()')}, account_id, id, 'article.create', $1::jsonb, 'request-rare',
              'succeeded', '{}'
       FROM api_keys LIMIT 1`,
      [JSON.stringify(RARE_PAYLOAD)],
    );
    const { rows } = await client.query<{ id: string; apiKeyId: string; handle: string }>(
      `SELECT k.account_id AS id, k.id AS "apiKeyId", a.handle
       FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.id LIMIT 1`,
    );
    account = rows[0]!;
  } finally {
    await client.end();
  }
}, 60_000);
afterAll(async () => {
  await db?.close();
  await scratch?.drop();
});

/**
 * A statement `searchEvents` sends: through Prisma, planned for its values (the pool forces
 * custom plans), or by readEveryPartition (every-partition.ts) with a generic plan, made
 * once for any values.
 */
type Sent = { custom: Prisma.Sql } | { generic: { text: string; values: unknown[] } };

/**
 * The statements `searchEvents` sends for `query`. Its `$queryRaw`, and its pool's
 * connections, are stand-ins that keep each statement and answer no rows, so the search
 * reads every id window (newest-first.ts) and each window's statement is kept; their plans
 * are then asked of the real database. Other pool queries (a slug's ranges) are real.
 */
async function searchSql(query: Omit<EventSearchQuery, 'limit'>): Promise<Sent[]> {
  const sent: Sent[] = [];
  const prisma = {
    $queryRaw: async (query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
      sent.push({ custom: query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values) });
      return [];
    },
  };
  const connection = {
    on() {},
    off() {},
    release() {},
    async query(statement: string | { name?: string; text: string; values?: unknown[] }) {
      if (typeof statement !== 'string') {
        sent.push({ generic: { text: statement.text, values: statement.values ?? [] } });
      }
      return { rows: [] };
    },
  };
  const pool = { connect: async () => connection, query: db.pool.query.bind(db.pool) };
  const config = { eventLog: { interval: 'day' } };
  await searchEvents({ db: { prisma, pool } as unknown as Database, config } as never, {
    limit: 20,
    ...query,
  });
  expect(sent.length).toBeGreaterThan(0);
  return sent;
}

/** Whether `sent` is the count of a first page's matches rather than a read of its rows. */
const isCount = (sent: Sent): boolean =>
  'custom' in sent && sent.custom.sql.trimStart().startsWith('SELECT count(*)');

/** The plan PostgreSQL runs `sent` by: its own for a custom plan, the one for any values. */
async function explain(sent: Sent): Promise<PlanNode> {
  if ('custom' in sent) {
    // Through Prisma, as searchEvents runs it, so the parameters are sent the same way.
    const [row] = await db.prisma.$queryRaw<Array<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>>(
      Prisma.sql`EXPLAIN (FORMAT JSON) ${sent.custom}`,
    );
    return row!['QUERY PLAN'][0].Plan;
  }
  // PostgreSQL 15 has no EXPLAIN (GENERIC_PLAN): prepared, under the setting
  // readEveryPartition runs it with, and explained at an execution.
  const { text, values } = sent.generic;
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN; SET LOCAL plan_cache_mode = force_generic_plan');
    await client.query(`PREPARE generic_search AS ${text}`);
    // EXECUTE takes no parameters of its own: the values go in as literals (strings and
    // numbers here), each taken as its parameter's type.
    const args = values.map((value) => client.escapeLiteral(String(value))).join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) EXECUTE generic_search(${args})`,
    );
    return rows[0]!['QUERY PLAN'][0].Plan;
  } finally {
    await client.query('ROLLBACK; DEALLOCATE generic_search');
    client.release();
  }
}

const describeNode = (node: PlanNode): string =>
  [node['Node Type'], node['Index Name'] && `using ${node['Index Name']}`]
    .filter(Boolean)
    .join(' ');

/** Which indexes the plan of `sent` reads, and whether it reads webhook_logs whole. */
async function planOf(sent: Sent) {
  const root = await explain(sent);
  // Partitions with next to no rows (those made ahead, the first, partly filled day) are
  // read by whichever index the planner likes: only the others' choices say anything.
  const small = new Set(
    (
      await db.prisma.$queryRaw<Array<{ relname: string }>>`
        SELECT relname FROM pg_class WHERE relname LIKE 'webhook_logs_p%' AND relkind = 'r'
          AND reltuples < 1000`
    ).map((partition) => partition.relname),
  );
  const every = nodesOf(root);
  const nodes = every.filter((node) => !small.has(node['Relation Name'] ?? ''));
  return {
    /** Every partition the plan reads, small or not. */
    relations: [...new Set(every.flatMap((node) => node['Relation Name'] ?? []))],
    plan: {
      // Each partition's own index, read as the index it was made from.
      indexes: [...new Set(nodes.flatMap((node) => node['Index Name'] ?? []).map(unpartitioned))],
      seqScan: nodes.some(
        (node) =>
          node['Node Type'] === 'Seq Scan' &&
          unpartitioned(node['Relation Name'] ?? '') === 'webhook_logs',
      ),
    },
    // Shown only when an expectation fails.
    outline: nodes.map(describeNode).join(' > '),
  };
}

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

describe('the operator event search uses an index for each filter', () => {
  // The filter's index, and others as good for some partitions.
  const cases: Array<[string, () => Omit<EventSearchQuery, 'limit'>, string, string[]?]> = [
    ['no filter: newest first', () => ({}), 'webhook_logs_received_at_id_idx'],
    ['status', () => ({ status: 'failed' }), 'webhook_logs_status_received_at_idx'],
    // No index of its own: event names are few (four valid ones), so walking the newest-
    // first index and skipping other events fills a page soon. A name hardly anyone sent
    // (a rejected typo) has nothing better than a seq scan.
    ['event', () => ({ event: 'article.delete' }), 'webhook_logs_received_at_id_idx'],
    ['accountId', () => ({ accountId: account.id }), 'webhook_logs_account_id_received_at_id_idx'],
    // A handle is looked up once (an InitPlan), then the account's index is read as for an id.
    [
      'accountId given as a handle',
      () => ({ accountId: account.handle.toUpperCase() }),
      'webhook_logs_account_id_received_at_id_idx',
      ['accounts_handle_key'],
    ],
    ['apiKeyId', () => ({ apiKeyId: account.apiKeyId }), 'webhook_logs_api_key_id_received_at_idx'],
    ['slug', () => ({ slug: 'slug-1234' }), 'webhook_logs_order_keys_idx'],
    // No index of its own either: an error code is looked for among failed events, and
    // rides on their index.
    [
      'error, among failed events',
      () => ({ status: 'failed', error: 'ARTICLE_NOT_FOUND' }),
      'webhook_logs_status_received_at_idx',
    ],
    // Nor has the time an event failed: it rides on the failed events' index too.
    [
      'failed since, among failed events',
      () => ({ failedSince: hoursAgo(1) }),
      'webhook_logs_status_received_at_idx',
    ],
    [
      'from and to',
      () => ({ from: hoursAgo(72), to: hoursAgo(48) }),
      'webhook_logs_received_at_id_idx',
      // The bounds are restated on the id (ids carry time), so where they cut a partition
      // to a few hours of its rows, reading those by the primary key and sorting them is
      // as good a plan; which one the planner takes depends on the time of day.
      ['webhook_logs_pkey'],
    ],
    [
      'payload (JSONB containment)',
      () => ({ payload: { category: RARE_PAYLOAD.category } }),
      'webhook_logs_payload_idx',
    ],
    // The plan for any values must still ask the payload index alone: offered the status
    // index too, a generic plan combined both and read every 'succeeded' entry.
    [
      'payload with status and account',
      () => ({
        payload: { category: RARE_PAYLOAD.category },
        status: 'succeeded',
        accountId: account.id,
      }),
      'webhook_logs_payload_idx',
    ],
    [
      'a later page (cursor)',
      () => ({ cursor: encodeCursor({ at: new Date(hoursAgo(240)), id: account.id }) }),
      'webhook_logs_received_at_id_idx',
      // As for from and to: the cursor is restated on the id, and early in the day it
      // cuts the cursor's partition to its first hours, which the primary key reads as
      // well (failed at 01:07 UTC).
      ['webhook_logs_pkey'],
    ],
  ];

  it.each(cases)('%s', async (_name, query, index, alsoGood = []) => {
    // Taken before the search takes its own: the search's newest window starts there or
    // later, should the clock pass a window's start in between.
    const [newest] = idWindows('day', Date.now());
    const sent = await searchSql(query());
    // The first page also counts its matches (event-count.ts), in any order: they are
    // judged apart, below.
    const counts = sent.filter(isCount);
    const plans = await Promise.all(sent.filter((one) => !isCount(one)).map(planOf));
    // A payload search first reads the newest events in order (probePayload), then, when
    // the value is rare, asks the payload index of every partition (a generic plan).
    const probe = 'payload' in query() ? plans.shift() : undefined;
    if (probe !== undefined) {
      // The probe reads the newest window only (today's partition, yesterday's too until
      // two clock margins into the day, and those made ahead: idWindows), whichever way
      // the planner likes within it: today's holds the day so far of this seed, up to
      // 1,440 rows, and reading the newest 500 of them by a scan and a sort is as good a
      // plan as the index. (Held to "no seq scan", this failed every day after 16:40 UTC,
      // once today's partition passed the 1,000 rows of `small`; held to today's
      // partition, it failed every night before 01:00 UTC.)
      const oldest = partitionName('webhook_logs', newest!.fromMs!, 'day');
      expect(probe.relations.length, probe.outline).toBeGreaterThan(0);
      expect(
        probe.relations.filter((name) => name < oldest),
        probe.outline,
      ).toEqual([]);
    }
    // A window of partitions too small to judge has no nodes left: the others must use
    // the filter's index, and together they must show it.
    for (const { plan, outline } of plans) {
      expect(plan.seqScan, outline).toBe(false);
      expect(
        plan.indexes.filter((name) => name !== index && !alsoGood.includes(name)),
        outline,
      ).toEqual([]);
    }
    const used = plans.flatMap(({ plan }) => plan.indexes);
    expect([index, ...alsoGood].filter((name) => used.includes(name))).not.toEqual([]);
    // A count reads however the planner likes, but stops at its bound: the rows it counts
    // come through a Limit. Later pages do not count.
    expect(counts.length === 0).toBe(query().cursor !== undefined);
    for (const count of counts) {
      const root = await explain(count);
      expect(nodesOf(root).map(describeNode).slice(0, 2)).toEqual(['Aggregate', 'Limit']);
    }
  });
});
