import {
  createPartition,
  idBoundaryAt,
  listPartitions,
  maintainPartitions,
  PREMAKE_DAYS,
  premakeAhead,
  timeOfId,
  type DetachedPeriod,
} from '@ingest/event-log';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';

const DAY = 24 * 3_600_000;
const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;

let scratch: ScratchDatabase;
let pool: pg.Pool;
const accountId = '01900000-0000-7000-8000-000000000001';

/** A UUIDv7 made at `ms`, distinct by `n`. */
const idAt = (ms: number, n: number) =>
  `${idBoundaryAt(ms).slice(0, 14)}7000-8000-${n.toString(16).padStart(12, '0')}`;
/** An event of the day the first test runs, written by it. */
let todaysEvent: string;

async function insertEvent(id: string, status: string): Promise<void> {
  await pool.query(
    `INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, order_keys)
     VALUES ($1, $2, 'article.create', '{"slug":"s"}', 'r', $3, '{s}')`,
    [id, accountId, status],
  );
  await pool.query(`INSERT INTO event_attempts (event_id, number) VALUES ($1, 1)`, [id]);
  if (status === 'queued') {
    await pool.query(
      `INSERT INTO pending_order_keys (account_id, key, sequence, event_id)
       SELECT account_id, 's', sequence, id FROM webhook_logs WHERE id = $1`,
      [id],
    );
  }
}

const names = async (table: string) =>
  (await listPartitions(pool)).filter((p) => p.table === table).map((p) => p.name);

beforeAll(async () => {
  scratch = await createScratchDatabase();
  pool = new pg.Pool({ connectionString: scratch.url, max: 12 });
  await pool.query(
    `INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
     VALUES ($1, 'p@example.com', 'partitions', 'P', 'x', now())`,
    [accountId],
  );
});

afterAll(async () => {
  await pool.end();
  await scratch.drop();
});

describe('event log partitions', () => {
  it('are made a week ahead once, by any number of processes at the same moment', async () => {
    const asked = Date.now();
    const rounds = await Promise.all(
      Array.from({ length: 8 }, () => premakeAhead(pool, 'day').catch((error: Error) => error)),
    );
    expect(rounds.filter((round) => round instanceof Error)).toEqual([]);
    const made = rounds.flatMap((round) => (Array.isArray(round) ? round : []));
    expect(new Set(made).size).toBe(made.length); // nobody made one twice
    const logs = (await listPartitions(pool)).filter((p) => p.table === 'webhook_logs');
    expect(Math.max(...logs.map((p) => p.toMs))).toBeGreaterThanOrEqual(asked + PREMAKE_DAYS * DAY);
    // Contiguous: each starts where the one before ends.
    for (let i = 1; i < logs.length; i += 1) expect(logs[i]!.fromMs).toBe(logs[i - 1]!.toMs);
    expect(await names('event_attempts')).toHaveLength(logs.length);
    // Events land in them through the parent, and a receipt lookup reads one partition.
    const id = (todaysEvent = idAt(Date.now(), 1));
    await insertEvent(id, 'succeeded');
    const plan = await pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT * FROM webhook_logs WHERE id = $1::uuid`,
      [id],
    );
    const scanned = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(scanned.match(/on webhook_logs_\w+/g)).toHaveLength(1);
  });

  it('drops periods past retention, never one that holds an unfinished event', async () => {
    const now = Date.now();
    const day = (ago: number) => startOfDay(now) - ago * DAY;
    for (const ago of [45, 44, 43]) {
      for (const table of ['webhook_logs', 'event_attempts'] as const) {
        await createPartition(pool, table, day(ago), day(ago - 1), 'day');
      }
    }
    await insertEvent(idAt(day(45) + 1_000, 2), 'succeeded');
    await insertEvent(idAt(day(44) + 1_000, 3), 'queued');
    await insertEvent(idAt(day(44) + 2_000, 4), 'failed');
    await insertEvent(idAt(day(43) + 1_000, 5), 'processing');

    const archived: DetachedPeriod[] = [];
    const archive = async (period: DetachedPeriod) => {
      const { rows } = await pool.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM "${period.logs}"`,
      );
      expect(rows[0]!.count).toBeGreaterThan(0); // archived before it is dropped
      archived.push(period);
    };
    const first = await maintainPartitions(pool, { interval: 'day', retentionDays: 30, archive });
    const p45 = `webhook_logs_p${new Date(day(45)).toISOString().slice(0, 10).replaceAll('-', '')}`;
    expect(first?.dropped).toEqual([p45]);
    expect(archived.map((period) => period.logs)).toEqual([p45]);
    expect(first?.held.map((held) => [held.unfinished, held.reason])).toEqual([
      [{ queued: 1 }, 'holds 1 queued event(s); it is dropped once they finish'],
      [{ processing: 1 }, 'holds 1 processing event(s); it is dropped once they finish'],
    ]);
    const left = await pool.query(`SELECT status FROM webhook_logs WHERE id = ANY($1::uuid[])`, [
      [3, 4, 5].map((n, i) => idAt(day(44 - Math.floor(i / 2)) + (n === 4 ? 2_000 : 1_000), n)),
    ]);
    expect(left.rows.map((row) => row.status).sort()).toEqual(['failed', 'processing', 'queued']);
    expect(await names('webhook_logs')).not.toContain(p45);
    expect(await names('event_attempts')).not.toContain(
      p45.replace('webhook_logs', 'event_attempts'),
    );

    // Once the events finish, the next round drops their periods too.
    await pool.query(`DELETE FROM pending_order_keys WHERE account_id = $1`, [accountId]);
    await pool.query(
      `UPDATE webhook_logs SET status = 'succeeded' WHERE status IN ('queued', 'processing')`,
    );
    const second = await maintainPartitions(pool, { interval: 'day', retentionDays: 30, archive });
    expect(second?.held).toEqual([]);
    expect(second?.dropped).toHaveLength(2);
  });

  it('drops at most maxDrops periods a round, the oldest first; held ones do not count', async () => {
    const day = (ago: number) => startOfDay(Date.now()) - ago * DAY;
    const period = (ago: number) =>
      `webhook_logs_p${new Date(day(ago)).toISOString().slice(0, 10).replaceAll('-', '')}`;
    for (const ago of [63, 62, 61, 60]) {
      for (const table of ['webhook_logs', 'event_attempts'] as const) {
        await createPartition(pool, table, day(ago), day(ago - 1), 'day');
      }
      await insertEvent(idAt(day(ago) + 1_000, 100 + ago), ago === 63 ? 'processing' : 'failed');
    }

    const first = await maintainPartitions(pool, {
      interval: 'day',
      retentionDays: 30,
      maxDrops: 1,
    });
    expect(first?.held.map((held) => held.name)).toEqual([period(63)]);
    expect(first?.dropped).toEqual([period(62)]);
    expect(first?.deferred).toEqual([period(61), period(60)]);
    expect(await names('webhook_logs')).toEqual(
      expect.arrayContaining([period(63), period(61), period(60)]),
    );

    const second = await maintainPartitions(pool, {
      interval: 'day',
      retentionDays: 30,
      maxDrops: 2,
    });
    expect(second?.dropped).toEqual([period(61), period(60)]);
    expect(second?.deferred).toEqual([]);
    const left = await names('webhook_logs');
    expect(left).toContain(period(63));
    expect(left.filter((name) => [62, 61, 60].some((ago) => name === period(ago)))).toEqual([]);
    expect(await names('event_attempts')).not.toContain(
      period(60).replace('webhook_logs', 'event_attempts'),
    );

    // The held period goes once its event finishes; nothing is left over.
    await pool.query(`UPDATE webhook_logs SET status = 'failed' WHERE status = 'processing'`);
    const third = await maintainPartitions(pool, {
      interval: 'day',
      retentionDays: 30,
      maxDrops: 1,
    });
    expect(third?.dropped).toEqual([period(63)]);
    expect(third?.deferred).toEqual([]);
  });

  it('keeps everything with retention 0', async () => {
    const old = startOfDay(Date.now()) - 60 * DAY;
    await createPartition(pool, 'webhook_logs', old, old + DAY, 'day');
    await createPartition(pool, 'event_attempts', old, old + DAY, 'day');
    const round = await maintainPartitions(pool, { interval: 'day', retentionDays: 0 });
    expect(round?.dropped).toEqual([]);
    const again = await maintainPartitions(pool, { interval: 'day', retentionDays: 30 });
    expect(again?.dropped).toHaveLength(1);
  });

  it('finishes a run that stopped between detaching and dropping', async () => {
    const old = startOfDay(Date.now()) - 50 * DAY;
    const logs = await createPartition(pool, 'webhook_logs', old, old + DAY, 'day');
    const attempts = await createPartition(pool, 'event_attempts', old, old + DAY, 'day');
    await insertEvent(idAt(old + 5_000, 6), 'succeeded');
    // The crash: both detached, nothing dropped; and a newer period's attempts detached
    // alone: those of the first test's event, wherever the clock has moved since.
    await pool.query(`ALTER TABLE event_attempts DETACH PARTITION "${attempts}"`);
    await pool.query(`ALTER TABLE webhook_logs DETACH PARTITION "${logs}"`);
    const madeAt = timeOfId(todaysEvent)!;
    const today = (await listPartitions(pool)).find(
      (p) => p.table === 'event_attempts' && (p.fromMs ?? 0) <= madeAt && madeAt < p.toMs,
    )!;
    await pool.query(`ALTER TABLE event_attempts DETACH PARTITION "${today.name}"`);

    const archived: DetachedPeriod[] = [];
    const round = await maintainPartitions(pool, {
      interval: 'day',
      retentionDays: 30,
      archive: async (period) => void archived.push(period),
    });
    expect(archived).toEqual([{ logs, attempts }]);
    expect(round?.dropped).toContain(logs);
    // The attempts detached alone are back beside their events, rows and all.
    expect(await names('event_attempts')).toContain(today.name);
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM event_attempts WHERE event_id = $1`,
      [todaysEvent],
    );
    expect(rows[0].n).toBe(1);
  });
});
