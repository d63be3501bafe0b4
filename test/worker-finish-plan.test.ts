// Claiming an event asks whether an earlier event stands in its lines, and finishing one
// takes it out of them (its rows of pending_order_keys are deleted in the statement that
// records its outcome). Both run for every event, so their cost must not grow with the
// account's backlog. Both were written as joins of pending_order_keys with the event's
// keys unnested beside it, and PostgreSQL probed the primary key by account and sequence
// alone, filtering the key afterwards: each event walked its account's backlog in the
// index. A bulk import drained in time square in its size, and the bench's drains slowed
// from phase to phase as earlier phases left places behind.
//
// Counting rows, as the claim's plan test does, cannot see that walk: an index scan
// checks its skipped column inside the index and reports only what matched. So these
// tests count the buffers the statements' reads of pending_order_keys touched, under
// EXPLAIN (ANALYZE, BUFFERS) in a transaction rolled back, behind a backlog of the same
// account's events about other slugs.
import { claimEvents, recordApplied, recordFailure, type AppliedEvent } from '@ingest/event-log';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodesOf, type PlanNode } from './support/query-plans.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { pgCapture, prismaCapture, type Statement } from './support/statement-capture.js';
import { uuidV7At } from './support/uuid-v7-sql.js';

const BACKLOG = 50_000;
/** About as many as one apply transaction records: up to 32 heads, with their runs. */
const FINISHING = 128;
/** A probe of a three-level btree and its heap row, twice over per event: generous. */
const BUFFERS_PER_EVENT = 10;

let scratch: ScratchDatabase;
let client: pg.Client;
let processing: string[];

beforeAll(async () => {
  scratch = await createScratchDatabase();
  client = await scratch.connect();
  await client.query(
    `INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
     VALUES (gen_random_uuid(), 'finish@example.test', 'finish', 'Finish', 'unused', now())`,
  );
  // The account's backlog: queued events about slugs of their own, with their places.
  await client.query(
    `WITH backlog AS (
       INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, order_keys)
       SELECT ${uuidV7At('now()')}, a.id, 'article.update', '{}', 'backlog-' || i, 'queued',
              ARRAY['backlog-' || i]
       FROM generate_series(1, $1::int) AS i, accounts a WHERE a.handle = 'finish'
       RETURNING account_id, order_keys, sequence, id)
     INSERT INTO pending_order_keys SELECT account_id, unnest(order_keys), sequence, id FROM backlog`,
    [BACKLOG],
  );
  // The events a worker is finishing: claimed (processing, attempt 1), first in their lines.
  const { rows } = await client.query<{ id: string }>(
    `WITH claimed AS (
       INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, order_keys,
                                 attempts)
       SELECT ${uuidV7At('now()')}, a.id, 'article.update', '{}', 'finishing-' || i,
              'processing', ARRAY['finishing-' || i], 1
       FROM generate_series(1, $1::int) AS i, accounts a WHERE a.handle = 'finish'
       RETURNING account_id, order_keys, sequence, id),
     placed AS (
       INSERT INTO pending_order_keys SELECT account_id, unnest(order_keys), sequence, id
       FROM claimed),
     opened AS (
       INSERT INTO event_attempts (event_id, number, started_at) SELECT id, 1, now() FROM claimed)
     SELECT id FROM claimed`,
    [FINISHING],
  );
  processing = rows.map((row) => row.id);
  // Statistics as this machine keeps them, with autovacuum off: none but the row count.
  await client.query('VACUUM pending_order_keys');
}, 60_000);
afterAll(async () => {
  await client?.end();
  await scratch?.drop();
});

type BufferedNode = PlanNode & { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };

/**
 * How the statement read pending_order_keys, run under EXPLAIN and rolled back: the
 * buffers (shared, hit or read) its reads touched, counted on the scan nodes themselves
 * (a statement's total leaves out its data-modifying CTEs, where the deletes run), and
 * whether one read the table whole.
 */
async function placeReadsOf({ text, values }: Statement) {
  await client.query('BEGIN');
  try {
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: BufferedNode }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`,
      values,
    );
    const scans = (nodesOf(rows[0]!['QUERY PLAN'][0].Plan) as BufferedNode[]).filter(
      // Scans only: a Delete node counts again what its scans read.
      (node) =>
        node['Relation Name'] === 'pending_order_keys' && node['Node Type'].endsWith('Scan'),
    );
    return {
      buffers: scans.reduce(
        (sum, node) => sum + node['Shared Hit Blocks'] + node['Shared Read Blocks'],
        0,
      ),
      seqScan: scans.some((node) => node['Node Type'] === 'Seq Scan'),
    };
  } finally {
    await client.query('ROLLBACK');
  }
}

describe("claiming and finishing events do not walk their account's backlog", () => {
  it('recording the outcomes of a batch', async () => {
    const sent: Statement[] = [];
    const applied: AppliedEvent[] = processing.map((eventId) => ({
      eventId,
      attempt: 1,
      outcome: { ok: true, value: { type: 'article', id: eventId, slug: 'unused' } },
      notifyOnFinish: false,
    }));
    await recordApplied(prismaCapture(sent, { finished: FINISHING }), applied);
    expect(sent).toHaveLength(1);
    const reads = await placeReadsOf(sent[0]!);
    expect(reads.seqScan).toBe(false);
    expect(reads.buffers).toBeLessThan(FINISHING * BUFFERS_PER_EVENT);
  });

  it("recording one event's final failure", async () => {
    const sent: Statement[] = [];
    await recordFailure(pgCapture(sent, { left: true }), {
      eventId: processing[0]!,
      attempt: 1,
      error: { code: 'ARTICLE_NOT_FOUND', message: 'No article has this slug' },
      final: true,
      notifyOnFinish: false,
    });
    expect(sent).toHaveLength(1);
    const reads = await placeReadsOf(sent[0]!);
    expect(reads.seqScan).toBe(false);
    expect(reads.buffers).toBeLessThan(BUFFERS_PER_EVENT * 3);
  });

  it('claiming an event behind the backlog of other slugs', async () => {
    const sent: Statement[] = [];
    await claimEvents(pgCapture(sent, {}), [processing[1]!]);
    expect(sent).toHaveLength(1);
    const reads = await placeReadsOf(sent[0]!);
    expect(reads.seqScan).toBe(false);
    expect(reads.buffers).toBeLessThan(BUFFERS_PER_EVENT * 3);
  });
});
