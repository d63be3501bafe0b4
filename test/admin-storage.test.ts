// The operators' view of the event log's storage (GET /api/admin/storage): partitions with
// their bounds, sizes and states, retention's next drop, and the partitions it holds.
//
// On a scratch database of the test's own, not the shared one: a queued event there would
// be queued again by the outbox reconciler of any other file's worker, an expired
// partition would be dropped by its partition upkeep, and a database migrated while it
// held events has a legacy partition spanning every past id, leaving no period free.
import type { EventLogPartition, EventLogStorage } from '@ingest/contracts';
import {
  attach,
  createPartition,
  listPartitions,
  partitionName,
  periodStart,
  premakeAhead,
  quoted,
  restoredPartitionName,
} from '@ingest/event-log';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import { expectProblem } from './support/problems.js';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { startTestApi, type TestApi } from './support/test-api.js';

const DAY = 24 * 3_600_000;
const RETENTION_DAYS = 30;
const iso = (ms: number) => new Date(ms).toISOString();

let scratch: ScratchDatabase;
/** The start of the UTC day `ago` days before the scratch database's first day. */
const day = (ago: number) => scratch.today - ago * DAY;
let pool: pg.Pool;
let api: TestApi;
let admin: RegisteredAccount;
let publisher: RegisteredAccount;

/** Creates both tables' partitions of the day `ago` days back; the events' one's name. */
async function makeDay(ago: number): Promise<string> {
  const name = await createPartition(pool, 'webhook_logs', day(ago), day(ago - 1), 'day');
  await createPartition(pool, 'event_attempts', day(ago), day(ago - 1), 'day');
  return name;
}

/** A restored period, as `pnpm events:restore` attaches one: never dropped by retention. */
async function makeRestoredDay(ago: number): Promise<string> {
  const name = restoredPartitionName('webhook_logs', day(ago));
  await pool.query(`CREATE TABLE ${quoted(name)} (LIKE webhook_logs)`);
  await attach(pool, {
    table: 'webhook_logs',
    name,
    fromMs: day(ago),
    toMs: day(ago - 1),
  });
  return name;
}

async function insertEvent(madeAt: number, status: string): Promise<void> {
  await pool.query(
    `INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status)
     VALUES ($1, $2, 'article.create', '{"slug":"s"}', 'storage-test', $3)`,
    [uuidv7({ msecs: madeAt }), publisher.id, status],
  );
}

let held: string;
let expiring: string;
let restored: string;
beforeAll(async () => {
  scratch = await createScratchDatabase();
  pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
  // A legacy partition (there is one when the migration found events) spans every id up to
  // the day it ran: dropped, empty, so that past periods can have partitions of their own.
  for (const legacy of (await listPartitions(pool)).filter((p) => p.fromMs === null)) {
    await pool.query(`ALTER TABLE ${quoted(legacy.table)} DETACH PARTITION ${quoted(legacy.name)}`);
    await pool.query(`DROP TABLE ${quoted(legacy.name)}`);
  }
  await premakeAhead(pool, 'day');
  restored = await makeRestoredDay(50);
  held = await makeDay(40);
  expiring = await makeDay(35);

  api = await startTestApi({
    DATABASE_URL: scratch.url,
    EVENT_LOG_PARTITION: 'day',
    EVENT_LOG_RETENTION_DAYS: String(RETENTION_DAYS),
  });
  [admin, publisher] = await Promise.all([registerAdmin(api), registerAccount(api)]);
  for (const status of ['queued', 'queued', 'processing', 'succeeded'])
    await insertEvent(day(40) + 60_000, status);
  await pool.query(`ANALYZE ${quoted(held)}`);
  // Written but never analysed, as the day's partition usually is while it is written.
  for (let i = 0; i < 3; i += 1) await insertEvent(day(35) + 60_000 + i, 'succeeded');
});
afterAll(async () => {
  await api?.close();
  await pool?.end();
  await scratch?.drop();
});

const storage = async (): Promise<EventLogStorage> => {
  const response = await api.app.inject({
    method: 'GET',
    url: '/api/admin/storage',
    headers: bearer(admin.token),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<EventLogStorage>();
};
const partition = (state: EventLogStorage, name: string): EventLogPartition | undefined =>
  state.partitions.find((candidate) => candidate.name === name);

describe('GET /api/admin/storage', () => {
  it("lists today's partition with its bounds, the ones made ahead, and the settings", async () => {
    const asked = Date.now();
    const state = await storage();
    expect(state).toMatchObject({
      retentionDays: RETENTION_DAYS,
      partitionInterval: 'day',
      archive: { enabled: false },
    });
    expect(JSON.stringify(state)).not.toContain(scratch.url); // nothing of the setup leaks

    const start = periodStart(asked, 'day');
    const current = state.partitions.filter(
      (p) =>
        p.table === 'webhook_logs' &&
        Date.parse(p.to) > asked &&
        p.from !== null &&
        Date.parse(p.from) <= asked,
    );
    expect(current).toEqual([
      expect.objectContaining({
        name: partitionName('webhook_logs', start, 'day'),
        from: iso(start),
        to: iso(start + DAY),
        state: 'current',
        detachPending: false,
      }),
    ]);
    expect(current[0]!.sizeBytes).toBeGreaterThan(0); // its indexes, if nothing else
    expect(partition(state, partitionName('event_attempts', start, 'day'))?.state).toBe('current');
    const ahead = state.partitions.filter((p) => p.state === 'future');
    expect(ahead.length).toBeGreaterThanOrEqual(2 * 6);
    expect(Date.parse(state.premadeUntil!)).toBeGreaterThanOrEqual(asked + 6 * DAY);

    for (const table of ['webhook_logs', 'event_attempts'] as const) {
      const own = state.partitions.filter((p) => p.table === table);
      expect(state.totals[table]).toEqual({
        partitions: own.length,
        sizeBytes: own.reduce((sum, p) => sum + p.sizeBytes, 0),
      });
    }
    // Oldest first, by the end of their ranges.
    const ends = state.partitions.map((p) => Date.parse(p.to));
    expect(ends).toEqual([...ends].sort((a, b) => a - b));
  });

  it('reports a partition past retention that holds unfinished events as held, with why and how many', async () => {
    const state = await storage();
    expect(partition(state, held)).toMatchObject({
      table: 'webhook_logs',
      from: iso(day(40)),
      to: iso(day(39)),
      state: 'held',
      unfinished: { queued: 2, processing: 1 },
      rowsEstimate: 4, // analysed: the finished event counts too
    });
    const reason = partition(state, held)?.heldReason ?? '';
    expect(reason).toMatch(/\b2 queued\b/);
    expect(reason).toMatch(/\b1 processing\b/);
    const attempts = partition(state, held.replace('webhook_logs', 'event_attempts'));
    expect(attempts?.state).toBe('held');
    expect(attempts?.heldReason).toContain(held);
    expect(attempts?.unfinished).toBeUndefined();
    expect(state.held).toEqual([
      {
        name: held,
        from: iso(day(40)),
        to: iso(day(39)),
        unfinished: { queued: 2, processing: 1 },
        reason,
      },
    ]);
  });

  it('names the next drop: an expired partition nothing holds, due already; restored ones are kept', async () => {
    const state = await storage();
    expect(partition(state, expiring)).toMatchObject({ state: 'expiring' });
    // Never analysed (the planner's estimate is -1): the statistics collector's live rows,
    // which it reports within a second or so of the writes.
    await expect
      .poll(async () => partition(await storage(), expiring)?.rowsEstimate, { timeout: 10_000 })
      .toBe(3);
    expect(partition(state, restored)).toMatchObject({ state: 'restored' });
    expect(partition(state, restored)?.heldReason).toBeUndefined();
    expect(state.nextDrop).toEqual({
      partition: expiring,
      at: iso(day(34) + RETENTION_DAYS * DAY),
    });
    expect(Date.parse(state.nextDrop!.at)).toBeLessThan(Date.now());
  });

  it('is for operators only: 403 for a publisher, 401 without credentials', async () => {
    expectProblem(
      await api.app.inject({
        method: 'GET',
        url: '/api/admin/storage',
        headers: bearer(publisher.token),
      }),
      403,
      'FORBIDDEN',
    );
    expectProblem(
      await api.app.inject({ method: 'GET', url: '/api/admin/storage' }),
      401,
      'UNAUTHENTICATED',
    );
  });
});
