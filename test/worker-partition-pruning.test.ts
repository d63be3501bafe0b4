// The event log is partitioned by day of the event's id. PostgreSQL prunes partitions
// while planning by `id = ANY(<values>)`, never by a join, and a worker's statements that
// update a batch of events reached them by a join: each claim and each outcome record
// planned, opened and locked every partition of webhook_logs and event_attempts. With 40
// days kept that cost more than the work itself: the worker's PostgreSQL CPU per event
// tripled beside a history (pnpm bench --history). These tests keep each statement to the
// partitions its events are in, with 40 days of partitions before them.
import {
  claimEvents,
  readEvents,
  listPartitions,
  recordApplied,
  stillBlocked,
  type AppliedEvent,
} from '@ingest/event-log';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { pgCapture, prismaCapture, type Statement } from './support/statement-capture.js';
import { uuidV7At } from './support/uuid-v7-sql.js';

const HISTORY_DAYS = 40;

let scratch: ScratchDatabase;
let client: pg.Client;
let processing: string[];

beforeAll(async () => {
  scratch = await createScratchDatabase({ historyDays: HISTORY_DAYS });
  client = await scratch.connect();
  await client.query(
    `INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
     VALUES (gen_random_uuid(), 'prune@example.test', 'prune', 'Prune', 'unused', now())`,
  );
  // Events a worker is applying, received now: claimed, attempt 1 open.
  const { rows } = await client.query<{ id: string }>(
    `WITH claimed AS (
       INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, order_keys,
                                 attempts)
       SELECT ${uuidV7At('now()')}, a.id, 'article.update', '{}', 'prune-' || i, 'processing',
              ARRAY['prune-' || i], 1
       FROM generate_series(1, 32) AS i, accounts a WHERE a.handle = 'prune'
       RETURNING id),
     opened AS (
       INSERT INTO event_attempts (event_id, number, started_at) SELECT id, 1, now() FROM claimed)
     SELECT id FROM claimed`,
  );
  processing = rows.map((row) => row.id);
}, 60_000);
afterAll(async () => {
  await client?.end();
  await scratch?.drop();
});

/** The partitions of the event log a statement's plan names, as PostgreSQL plans it. */
async function partitionsPlanned({ text, values }: Statement): Promise<string[]> {
  await client.query('BEGIN');
  try {
    // As every pool connection runs (packages/db, client.ts): a plan for these values.
    await client.query('SET LOCAL plan_cache_mode = force_custom_plan');
    const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (FORMAT JSON) ${text}`,
      values,
    );
    const names = JSON.stringify(rows[0]!['QUERY PLAN']).match(
      /"(webhook_logs|event_attempts)_p\d+"/g,
    );
    return [...new Set(names ?? [])].map((name) => name.slice(1, -1)).sort();
  } finally {
    await client.query('ROLLBACK');
  }
}

/** The partitions today's events are in: one of each table. */
async function todays(): Promise<string[]> {
  const now = Date.now();
  const partitions = await listPartitions(client);
  return partitions
    .filter((p) => (p.fromMs ?? -Infinity) <= now && now < p.toMs)
    .map((p) => p.name)
    .sort();
}

describe("a worker's statements plan only their events' partitions", () => {
  it('claiming a batch', async () => {
    const sent: Statement[] = [];
    await claimEvents(pgCapture(sent), processing);
    const [today] = (await todays()).filter((name) => name.startsWith('webhook_logs'));
    expect(await partitionsPlanned(sent[0]!)).toEqual([today]);
  });

  it("reading a batch for its jobs' first delivery", async () => {
    const sent: Statement[] = [];
    await readEvents(pgCapture(sent), processing);
    const [today] = (await todays()).filter((name) => name.startsWith('webhook_logs'));
    expect(await partitionsPlanned(sent[0]!)).toEqual([today]);
  });

  it('asking whether parked events still wait', async () => {
    const sent: Statement[] = [];
    await stillBlocked(pgCapture(sent), processing.slice(0, 3));
    const [today] = (await todays()).filter((name) => name.startsWith('webhook_logs'));
    expect(await partitionsPlanned(sent[0]!)).toEqual([today]);
  });

  it('recording the outcomes of a batch', async () => {
    const sent: Statement[] = [];
    const applied: AppliedEvent[] = processing.map((eventId) => ({
      eventId,
      attempt: 1,
      outcome: { ok: true, value: { type: 'article', id: eventId, slug: 'unused' } },
      notifyOnFinish: false,
    }));
    await recordApplied(prismaCapture(sent, { finished: processing.length }), applied);
    expect(await partitionsPlanned(sent[0]!)).toEqual(await todays());
  });
});
