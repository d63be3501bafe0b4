// A worker's claim of an event checks that no earlier event of its lines (its account's
// events about the same slugs) is unfinished. That check runs once per job, so it must
// read those lines' places only, never the history of the table or another account's
// backlog: written as `EXISTS (... p.sequence < e.sequence)` over webhook_logs it walked
// the sequence index from the oldest event, 9 ms a claim at 20,000 events and growing
// with every event ever received.
//
// The claim runs for real under EXPLAIN ANALYZE (in a transaction rolled back), on a
// scratch database seeded the ways a worker meets it: a long finished history, a backlog
// of queued events, and another account's burst about the same slug. The figure checked
// is how many rows of webhook_logs and pending_order_keys the plan looked at, which does
// not depend on which index the planner prefers.
import { claimEvents } from '@ingest/event-log';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodesOf, unpartitioned, type PlanNode } from './support/query-plans.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { uuidV7At } from './support/uuid-v7-sql.js';

const EVENTS = 20_000;

let scratch: ScratchDatabase;
let client: pg.Client;
beforeAll(async () => {
  scratch = await createScratchDatabase();
  client = await scratch.connect();
  await client.query(
    `INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
     VALUES (gen_random_uuid(), 'claims@example.test', 'claims', 'Claims', 'unused', now()),
            (gen_random_uuid(), 'other@example.test', 'other', 'Other', 'unused', now())`,
  );
  // Two events a slug (a create and an update), in acceptance order.
  await client.query(
    `INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, order_keys)
     SELECT ${uuidV7At('now()')}, a.id,
            CASE WHEN i % 2 = 0 THEN 'article.create' ELSE 'article.update' END,
            jsonb_build_object('slug', 'slug-' || i / 2, 'title', 'Title ' || i),
            'request-' || i, 'succeeded', ARRAY['slug-' || i / 2]
     FROM generate_series(0, $1::int - 1) AS i, accounts a
     WHERE a.handle = 'claims'
     ORDER BY i`,
    [EVENTS],
  );
  await client.query('VACUUM ANALYZE webhook_logs');
}, 60_000);
afterAll(async () => {
  await client?.end();
  await scratch?.drop();
});

/** The statement `claimEvents` sends for `eventId`, captured instead of run. */
async function claimStatement(eventId: string): Promise<{ text: string; values: unknown[] }> {
  const sent: Array<{ text: string; values: unknown[] }> = [];
  const capture = {
    query: async (config: { text: string; values: unknown[] }) => {
      sent.push(config);
      return { rows: [] };
    },
  };
  await claimEvents(capture as unknown as pg.Client, [eventId]);
  expect(sent).toHaveLength(1);
  return sent[0]!;
}

/** Queued again, with their places in their lines, as the API records them. */
async function requeue(where: string, values: unknown[] = []): Promise<void> {
  await client.query(
    `WITH queued AS (UPDATE webhook_logs SET status = 'queued' WHERE ${where}
                     RETURNING account_id, order_keys, sequence, id)
     INSERT INTO pending_order_keys SELECT account_id, unnest(order_keys), sequence, id FROM queued`,
    values,
  );
}

/** Runs the claim of `eventId` under EXPLAIN ANALYZE and rolls it back. */
async function claimPlan(eventId: string) {
  const { text, values } = await claimStatement(eventId);
  await client.query('BEGIN');
  try {
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
      values,
    );
    const nodes = nodesOf(rows[0]!['QUERY PLAN'][0].Plan);
    const scans = nodes.filter((node) =>
      ['webhook_logs', 'pending_order_keys'].includes(unpartitioned(node['Relation Name'] ?? '')),
    );
    return {
      rowsLookedAt: scans.reduce(
        (sum, node) =>
          sum +
          ((node['Actual Rows'] ?? 0) +
            (node['Rows Removed by Filter'] ?? 0) +
            (node['Rows Removed by Index Recheck'] ?? 0)) *
            (node['Actual Loops'] ?? 1),
        0,
      ),
      // A seq scan that looked at nothing is an empty partition's (premade, or pruned at
      // run time and never executed): not a read of the table.
      seqScan: scans.some(
        (node) =>
          node['Node Type'] === 'Seq Scan' &&
          (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) > 0,
      ),
      outline: nodes.map((node) => node['Node Type']).join(' > '),
    };
  } finally {
    await client.query('ROLLBACK');
  }
}

/** The id of the newest event about `slug-<n>` (its update). */
async function updateOf(n: number): Promise<string> {
  const { rows } = await client.query<{ id: string }>(
    `SELECT id FROM webhook_logs WHERE order_keys = ARRAY['slug-' || $1::int]
     ORDER BY sequence DESC LIMIT 1`,
    [n],
  );
  return rows[0]!.id;
}

describe("a worker's claim reads only its own lines", () => {
  it('after a long finished history', async () => {
    const eventId = await updateOf(EVENTS / 2 - 10);
    await requeue('id = $1', [eventId]);
    const plan = await claimPlan(eventId);
    expect(plan.seqScan, plan.outline).toBe(false);
    expect(plan.rowsLookedAt, plan.outline).toBeLessThan(20);
  });

  it('behind a backlog of queued events', async () => {
    await requeue(`status = 'succeeded'`);
    await client.query('VACUUM ANALYZE webhook_logs, pending_order_keys');
    const plan = await claimPlan(await updateOf(EVENTS / 2 - 10));
    expect(plan.seqScan, plan.outline).toBe(false);
    expect(plan.rowsLookedAt, plan.outline).toBeLessThan(20);
  });

  it("behind another account's burst about the same slug", async () => {
    const slug = `slug-${EVENTS / 2 - 20}`;
    await client.query(
      `WITH burst AS (
         INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, order_keys)
         SELECT ${uuidV7At('now()')}, a.id, 'article.update', jsonb_build_object('slug', $1::text),
                'foreign-' || i, 'queued', ARRAY[$1::text]
         FROM generate_series(1, 5000) AS i, accounts a WHERE a.handle = 'other'
         RETURNING account_id, order_keys, sequence, id)
       INSERT INTO pending_order_keys SELECT account_id, unnest(order_keys), sequence, id FROM burst`,
      [slug],
    );
    // The owner's own update, accepted after the burst.
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, order_keys)
       SELECT ${uuidV7At('now()')}, a.id, 'article.update', jsonb_build_object('slug', $1::text),
              'owner', 'succeeded', ARRAY[$1::text]
       FROM accounts a WHERE a.handle = 'claims' RETURNING id`,
      [slug],
    );
    await client.query('VACUUM ANALYZE webhook_logs, pending_order_keys');
    await requeue('id = $1', [rows[0]!.id]);
    const plan = await claimPlan(rows[0]!.id);
    expect(plan.seqScan, plan.outline).toBe(false);
    expect(plan.rowsLookedAt, plan.outline).toBeLessThan(20);
  });
});
