// Retention per account: an operator sets it (PUT /api/admin/accounts/:id/retention, within
// EVENT_LOG_RETENTION_MIN_DAYS and _MAX_DAYS); the workers' partition upkeep drops
// partitions only past the longest retention in force and deletes, row by row, the
// finished events of accounts that keep theirs less long; receipts answer 410 past the
// account's own retention; the storage view counts with the longest retention.
//
// On a scratch database of the test's own: other files' workers run partition upkeep on
// the shared one, and would drop or delete what this file sets up.
import type { EventLogStorage } from '@ingest/contracts';
import {
  createPartition,
  EXPIRY_BATCH,
  EVENT_LOG_TABLES,
  maintainPartitions,
  partitionName,
  periodStart,
  type PartitionMaintenance,
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
const DEFAULT_DAYS = 30;

let scratch: ScratchDatabase;
let pool: pg.Pool;
let api: TestApi;
let admin: RegisteredAccount;
/** Keeps its events 7 days, 60 days, the default (30); and a publisher who is no operator. */
let short: RegisteredAccount;
let long: RegisteredAccount;
let plain: RegisteredAccount;
let publisher: RegisteredAccount;
/** The events the round's tests recorded, by role; the receipts' tests read them after. */
const ids: Record<string, string> = {};

/** As the worker's partition upkeep calls it (apps/worker/src/partition-upkeep.ts). */
const round = (options: Partial<PartitionMaintenance> = {}) =>
  maintainPartitions(pool, {
    interval: 'day',
    retentionDays: DEFAULT_DAYS,
    retentionBounds: api.deps.config.eventLog.retentionBounds,
    ...options,
  });

/** An event of `account` made and received `daysAgo` days ago, with one attempt. */
async function insertEvent(account: RegisteredAccount, daysAgo: number, status: string) {
  const at = Date.now() - daysAgo * DAY;
  const id = uuidv7({ msecs: at });
  await pool.query(
    `INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, received_at)
     VALUES ($1, $2, 'article.create', '{"slug":"s"}', 'retention-test', $3, $4)`,
    [id, account.id, status, new Date(at)],
  );
  await pool.query(`INSERT INTO event_attempts (event_id, number) VALUES ($1, 1)`, [id]);
  return id;
}

const held = async (ids: string[]) => {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM webhook_logs WHERE id = ANY($1::uuid[]) ORDER BY id`,
    [ids],
  );
  return rows.map((row) => row.id);
};
const attemptsOf = async (ids: string[]) => {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM event_attempts WHERE event_id = ANY($1::uuid[])`,
    [ids],
  );
  return rows[0]!.n;
};

const setRetention = (account: RegisteredAccount, days: unknown, token = admin.token) =>
  api.app.inject({
    method: 'PUT',
    url: `/api/admin/accounts/${account.id}/retention`,
    headers: bearer(token),
    payload: { days },
  });
const receiptOf = (account: RegisteredAccount, id: string | undefined) =>
  api.app.inject({
    method: 'GET',
    url: `/api/webhooks/content/${id}`,
    headers: bearer(account.token),
  });

beforeAll(async () => {
  scratch = await createScratchDatabase({ historyDays: 70 });
  pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
  api = await startTestApi({
    DATABASE_URL: scratch.url,
    EVENT_LOG_PARTITION: 'day',
    EVENT_LOG_RETENTION_DAYS: String(DEFAULT_DAYS),
  });
  [admin, short, long, plain, publisher] = await Promise.all([
    registerAdmin(api),
    registerAccount(api),
    registerAccount(api),
    registerAccount(api),
    registerAccount(api),
  ]);
});
afterAll(async () => {
  await api?.close();
  await pool?.end();
  await scratch?.drop();
});

describe('PUT /api/admin/accounts/:id/retention', () => {
  it('sets an account retention within the bounds, and the account page shows it', async () => {
    const set = await setRetention(short, 7);
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ days: 7, effectiveDays: 7 });
    expect((await setRetention(long, 60)).json()).toEqual({ days: 60, effectiveDays: 60 });

    const page = await api.app.inject({
      method: 'GET',
      url: `/api/admin/accounts/${short.handle}`,
      headers: bearer(admin.token),
    });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json<{ retention: unknown }>().retention).toEqual({ days: 7, effectiveDays: 7 });
    const plainPage = await api.app.inject({
      method: 'GET',
      url: `/api/admin/accounts/${plain.id}`,
      headers: bearer(admin.token),
    });
    expect(plainPage.json<{ retention: unknown }>().retention).toEqual({
      days: null,
      effectiveDays: DEFAULT_DAYS,
    });
  });

  it('answers 400 naming `days` outside the bounds, and null returns to the default', async () => {
    const { maxDays } = api.deps.config.eventLog.retentionBounds;
    for (const days of [0, maxDays + 1, 7.5, '7']) {
      const problem = expectProblem(await setRetention(plain, days), 400, 'VALIDATION_FAILED');
      expect(
        problem.errors?.map((error) => error.path),
        String(days),
      ).toEqual(['days']);
    }
    expect((await setRetention(plain, maxDays)).json()).toEqual({
      days: maxDays,
      effectiveDays: maxDays,
    });
    expect((await setRetention(plain, null)).json()).toEqual({
      days: null,
      effectiveDays: DEFAULT_DAYS,
    });
    const { rows } = await pool.query(`SELECT retention_days FROM accounts WHERE id = $1`, [
      plain.id,
    ]);
    expect(rows).toEqual([{ retention_days: null }]);
    expectProblem(
      await api.app.inject({
        method: 'PUT',
        url: `/api/admin/accounts/${uuidv7()}/retention`,
        headers: bearer(admin.token),
        payload: { days: 7 },
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('is for operators only: 403 for a publisher, even on its own account', async () => {
    expectProblem(await setRetention(publisher, 7, publisher.token), 403, 'FORBIDDEN');
    expectProblem(await setRetention(short, 3650, publisher.token), 403, 'FORBIDDEN');
    const { rows } = await pool.query(
      `SELECT retention_days FROM accounts WHERE id = ANY($1::uuid[]) ORDER BY retention_days`,
      [[publisher.id, short.id]],
    );
    expect(rows).toEqual([{ retention_days: 7 }, { retention_days: null }]);
  });
});

describe('the retention round', () => {
  it('deletes the finished events of a 7-day account past 7 days, keeping unfinished and newer ones', async () => {
    ids.shortOld = await insertEvent(short, 10, 'succeeded');
    ids.shortOldFailed = await insertEvent(short, 9, 'failed');
    ids.shortQueued = await insertEvent(short, 10, 'queued');
    ids.shortProcessing = await insertEvent(short, 12, 'processing');
    ids.shortNew = await insertEvent(short, 3, 'succeeded');
    ids.longOld = await insertEvent(long, 40, 'succeeded');
    ids.longOlder = await insertEvent(long, 59, 'failed');
    ids.plainOld = await insertEvent(plain, 40, 'succeeded');
    ids.plainNew = await insertEvent(plain, 20, 'succeeded');
    // Past even the longest retention: its partition goes whole.
    ids.plainAncient = await insertEvent(plain, 65, 'succeeded');

    const done = await round();
    expect(done?.longestRetentionDays).toBe(60);
    expect(done?.expired).toMatchObject({ events: 3, attempts: 3, more: false });
    const ancient = periodStart(Date.now() - 65 * DAY, 'day');
    expect(done?.dropped).toContain(partitionName('webhook_logs', ancient, 'day'));

    const all = Object.values(ids);
    const kept = await held(all);
    expect(kept).not.toContain(ids.shortOld);
    expect(kept).not.toContain(ids.shortOldFailed);
    expect(kept).not.toContain(ids.plainAncient);
    // The default account keeps 30 days: its 40-day-old event goes row by row, as its
    // partition stays for the 60-day account.
    expect(kept).not.toContain(ids.plainOld);
    for (const id of [ids.shortQueued, ids.shortProcessing, ids.shortNew, ids.plainNew])
      expect(kept).toContain(id);
    expect(await attemptsOf([ids.shortOld, ids.shortOldFailed, ids.plainOld])).toBe(0);
    expect(await attemptsOf([ids.shortQueued, ids.shortNew])).toBe(2);
  });

  it('keeps the 40-day-old events of a 60-day account, and the partitions holding them', async () => {
    const kept = await held([ids.longOld!, ids.longOlder!]);
    expect(kept).toHaveLength(2);
    const { rows } = await pool.query<{ relname: string }>(
      `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'webhook_logs'::regclass`,
    );
    const attached = rows.map((row) => row.relname);
    for (const daysAgo of [40, 59]) {
      const start = periodStart(Date.now() - daysAgo * DAY, 'day');
      expect(attached).toContain(partitionName('webhook_logs', start, 'day'));
    }
    expect(await attemptsOf([ids.longOld!, ids.longOlder!])).toBe(2);

    // Back to the default, the 60-day account's events past 30 days go: its partitions
    // are then past the longest retention, and are dropped whole.
    expect((await setRetention(long, null)).statusCode).toBe(200);
    const done = await round({ maxDrops: 100 });
    expect(done?.longestRetentionDays).toBe(DEFAULT_DAYS);
    expect(await held([ids.longOld!, ids.longOlder!])).toEqual([]);
    expect(done?.dropped).toContain(
      partitionName('webhook_logs', periodStart(Date.now() - 40 * DAY, 'day'), 'day'),
    );
    expect((await setRetention(long, 60)).statusCode).toBe(200);
    // The days dropped are made again, empty, for the tests that follow.
    for (let daysAgo = 60; daysAgo > DEFAULT_DAYS; daysAgo -= 1) {
      const start = periodStart(Date.now() - daysAgo * DAY, 'day');
      for (const table of EVENT_LOG_TABLES)
        await createPartition(pool, table, start, start + DAY, 'day');
    }
  });

  it('deletes an unfinished event once it finishes, a bounded number a round', async () => {
    await pool.query(`UPDATE webhook_logs SET status = 'failed' WHERE id = $1`, [ids.shortQueued]);
    const many = [];
    for (let i = 0; i < 5; i += 1) many.push(await insertEvent(short, 8 + i / 10, 'succeeded'));
    const first = await round({ maxExpiredEvents: 4 });
    expect(first?.expired).toMatchObject({ events: 4, more: true });
    const second = await round({ maxExpiredEvents: 4 });
    expect(second?.expired).toMatchObject({ events: 2, more: false });
    expect(await held([...many, ids.shortQueued!])).toEqual([]);
    expect(await held([ids.shortProcessing!])).toEqual([ids.shortProcessing]);
    expect(EXPIRY_BATCH).toBeLessThanOrEqual(5_000); // a few thousand rows a statement
  });
});

describe('receipts past the account retention', () => {
  it('answer 410 for a deleted event and for one still held, 200 within it', async () => {
    const gone = await receiptOf(short, ids.shortOld);
    expect(expectProblem(gone, 410, 'EVENT_EXPIRED').detail).toMatch(/kept 7 days/);
    // Unfinished, so still in the log, but past the account's 7 days.
    const still = await receiptOf(short, ids.shortProcessing);
    expect(expectProblem(still, 410, 'EVENT_EXPIRED').detail).toMatch(/kept 7 days/);
    expect((await receiptOf(short, ids.shortNew)).statusCode).toBe(200);
    // An id never recorded, 8 days old: 410 for the 7-day account, 404 for the others.
    const unknown = uuidv7({ msecs: Date.now() - 8 * DAY });
    expectProblem(await receiptOf(short, unknown), 410, 'EVENT_EXPIRED');
    expectProblem(await receiptOf(plain, unknown), 404, 'NOT_FOUND');
  });

  it('answer 200 for a 40-day-old event of a 60-day account', async () => {
    const id = await insertEvent(long, 40, 'succeeded');
    const response = await receiptOf(long, id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id, status: 'succeeded' });
  });
});

describe('GET /api/admin/storage', () => {
  it('counts with the longest retention: a partition a longer account keeps is not expiring', async () => {
    const response = await api.app.inject({
      method: 'GET',
      url: '/api/admin/storage',
      headers: bearer(admin.token),
    });
    expect(response.statusCode, response.body).toBe(200);
    const storage = response.json<EventLogStorage>();
    expect(storage).toMatchObject({ retentionDays: DEFAULT_DAYS, longestRetentionDays: 60 });
    const start = periodStart(Date.now() - 40 * DAY, 'day');
    const forty = storage.partitions.find(
      (p) => p.name === partitionName('webhook_logs', start, 'day'),
    );
    expect(forty?.state).toBe('current');
    expect(storage.partitions.filter((p) => p.state === 'expiring')).toEqual([]);
    const next = storage.partitions.find((p) => p.name === storage.nextDrop?.partition)!;
    expect(Date.parse(storage.nextDrop!.at)).toBe(Date.parse(next.to) + 60 * DAY);
  });
});
