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
import { encodeCursor } from '@ingest/api/pagination';
import { createDatabase, Prisma, type Database } from '@ingest/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodesOf, type PlanNode } from './support/query-plans.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';

const EVENTS = 50_000;
const ACCOUNTS = 200;
const RARE_PAYLOAD = { slug: 'corrections-policy', title: 'Corrections', category: 'Corrections' };

let scratch: ScratchDatabase;
let db: Database;
let account: { id: string; apiKeyId: string };
beforeAll(async () => {
  scratch = await createScratchDatabase();
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
      `INSERT INTO api_keys (id, account_id, name, scopes, prefix, key_hash)
       SELECT gen_random_uuid(), id, 'key', '{content:create}', 'sk-plans', sha256(id::text::bytea)
       FROM accounts`,
    );
    // One event a minute, keys taking turns; the four event names equally often; about
    // 1% failed, 1% rejected, 0.1% queued, the rest succeeded; three events a slug.
    await client.query(
      `INSERT INTO webhook_logs
         (id, account_id, api_key_id, event, payload, request_id, status, order_keys, received_at)
       SELECT gen_random_uuid(), k.account_id, k.id,
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
       SELECT gen_random_uuid(), account_id, id, 'article.create', $1::jsonb, 'request-rare',
              'succeeded', '{}'
       FROM api_keys LIMIT 1`,
      [JSON.stringify(RARE_PAYLOAD)],
    );
    const { rows } = await client.query<{ id: string; apiKeyId: string }>(
      `SELECT account_id AS id, id AS "apiKeyId" FROM api_keys ORDER BY id LIMIT 1`,
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
 * The SQL `searchEvents` sends for `query`. Its `$queryRaw` is handed a stand-in that
 * keeps the statement instead of running it; the plan is then asked of the real database.
 */
async function searchSql(query: Omit<EventSearchQuery, 'limit'>): Promise<Prisma.Sql> {
  const sent: Prisma.Sql[] = [];
  const prisma = {
    $queryRaw: async (strings: TemplateStringsArray, ...values: unknown[]) => {
      sent.push(Prisma.sql(strings, ...values));
      return [];
    },
  };
  await searchEvents({ db: { prisma } as unknown as Database }, { limit: 20, ...query });
  expect(sent).toHaveLength(1);
  return sent[0]!;
}

const describeNode = (node: PlanNode): string =>
  [node['Node Type'], node['Index Name'] && `using ${node['Index Name']}`]
    .filter(Boolean)
    .join(' ');

/** Which indexes the plan reads, and whether it reads webhook_logs whole. */
async function planOf(query: Omit<EventSearchQuery, 'limit'>) {
  const sql = await searchSql(query);
  // Through Prisma, as searchEvents runs it, so the parameters are sent the same way.
  const [row] = await db.prisma.$queryRaw<Array<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>>(
    Prisma.sql`EXPLAIN (FORMAT JSON) ${sql}`,
  );
  const nodes = nodesOf(row!['QUERY PLAN'][0].Plan);
  return {
    plan: {
      indexes: nodes.flatMap((node) => node['Index Name'] ?? []),
      seqScan: nodes.some(
        (node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'webhook_logs',
      ),
    },
    // Shown only when an expectation fails.
    outline: nodes.map(describeNode).join(' > '),
  };
}

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

describe('the operator event search uses an index for each filter', () => {
  const cases: Array<[string, () => Omit<EventSearchQuery, 'limit'>, string]> = [
    ['no filter: newest first', () => ({}), 'webhook_logs_received_at_id_idx'],
    ['status', () => ({ status: 'failed' }), 'webhook_logs_status_received_at_idx'],
    // No index of its own: event names are few (four valid ones), so walking the newest-
    // first index and skipping other events fills a page soon. A name hardly anyone sent
    // (a rejected typo) has nothing better than a seq scan.
    ['event', () => ({ event: 'article.delete' }), 'webhook_logs_received_at_id_idx'],
    ['accountId', () => ({ accountId: account.id }), 'webhook_logs_account_id_received_at_id_idx'],
    ['apiKeyId', () => ({ apiKeyId: account.apiKeyId }), 'webhook_logs_api_key_id_received_at_idx'],
    ['slug', () => ({ slug: 'slug-1234' }), 'webhook_logs_order_keys_idx'],
    [
      'from and to',
      () => ({ from: hoursAgo(72), to: hoursAgo(48) }),
      'webhook_logs_received_at_id_idx',
    ],
    [
      'payload (JSONB containment)',
      () => ({ payload: { category: RARE_PAYLOAD.category } }),
      'webhook_logs_payload_idx',
    ],
    [
      'a later page (cursor)',
      () => ({ cursor: encodeCursor({ at: new Date(hoursAgo(240)), id: account.id }) }),
      'webhook_logs_received_at_id_idx',
    ],
  ];

  it.each(cases)('%s', async (_name, query, index) => {
    const { plan, outline } = await planOf(query());
    expect(plan, outline).toEqual({ indexes: [index], seqScan: false });
  });
});
