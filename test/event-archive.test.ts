import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createDatabase, Prisma } from '@ingest/db';
import {
  ArchiveManifestSchema,
  createArchiver,
  dropRestored,
  restoreArchive,
  type ArchiveManifest,
} from '@ingest/event-archive';
import {
  attach,
  createPartition,
  EVENT_LOG_TABLES,
  idBoundaryAt,
  listPartitions,
  partitionName,
  periodStart,
  replayFailed,
  restoredPartitionName,
  runRetention,
  withPartitionLock,
  type Archiver,
  type EventLogTable,
  type RetentionReport,
} from '@ingest/event-log';
import { REPO_ROOT, runCommand } from '@ingest/test-harness';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';

const DAY = 86_400_000;
/**
 * The clock retention runs with here, fixed (`now`), and the day the log is laid out
 * around. The test makes every partition itself, so nothing ties it to the wall clock,
 * whose day may change while the file runs.
 */
const NOW = Date.UTC(2026, 10, 26, 12);
const TODAY = periodStart(NOW, 'day');
/** The periods of the round trip: a legacy partition open below, and two expired days. */
const day = (fromMs: number) => ({
  name: partitionName('webhook_logs', fromMs, 'day'),
  fromMs: fromMs as number | null,
  toMs: fromMs + DAY,
});
const PERIODS = [
  { name: 'webhook_logs_legacy', fromMs: null, toMs: TODAY - 100 * DAY },
  day(TODAY - 45 * DAY),
  day(TODAY - 44 * DAY),
];

let scratch: ScratchDatabase;
let pool: pg.Pool;
let dir: string;
const accountId = uuidv7();
const apiKeyId = uuidv7();

beforeAll(async () => {
  scratch = await createScratchDatabase();
  pool = new pg.Pool({ connectionString: scratch.url, max: 4 });
  dir = await mkdtemp(join(tmpdir(), 'event-archive-'));
  await pool.query(
    `INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
     VALUES ($1, $2, $2, 'Archive', 'x', now())`,
    [accountId, `archive-${accountId}@example.test`],
  );
  await pool.query(
    `INSERT INTO api_keys (id, account_id, name, scopes, prefix, key_hash, signing_secret)
     VALUES ($1, $2, 'k', ARRAY['content:create'], 'p', $3, 'whsec_unused')`,
    [apiKeyId, accountId, Buffer.from(apiKeyId)],
  );
  // The migration leaves the new database's (empty) partitions around the real today: the
  // log is made again around TODAY, with a legacy partition open below that ends 100 days
  // before, so that older days can have partitions of their own, as in a log that has run
  // for months.
  const made = await listPartitions(pool);
  for (const table of [...EVENT_LOG_TABLES].reverse())
    for (const { name } of made.filter((p) => p.table === table)) await dropPartition(table, name);
  for (const table of EVENT_LOG_TABLES) {
    const name = `${table}_legacy`;
    await pool.query(`CREATE TABLE ${name} (LIKE ${table})`);
    await attach(pool, { table, name, fromMs: null, toMs: PERIODS[0]!.toMs });
  }
  for (const start of [...PERIODS.slice(1).map((p) => p.fromMs!), TODAY])
    for (const table of EVENT_LOG_TABLES)
      await createPartition(pool, table, start, start + DAY, 'day');
});

/** Set-up only: an empty partition, gone at once (a referenced one must be detached first). */
async function dropPartition(table: EventLogTable, name: string) {
  await pool.query(`ALTER TABLE ${table} DETACH PARTITION ${name}`);
  await pool.query(`DROP TABLE ${name}`);
}

afterAll(async () => {
  await pool?.end();
  await scratch?.drop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

// Values chosen to break a lossy encoding: a bigint past 2^53, numbers no double holds,
// JSON nulls in arrays, empty and NULL text[], line breaks and quotes, milliseconds, and
// SQL NULLs in every nullable column.
const PAYLOAD = `{"big": 12345678901234567890123, "exact": 1.000000000000000000001,
  "text": "line\\nbreak \\u2028 \\"q\\" \\\\ 🙂", "nested": [{"a": null}, [], {}]}`;
let sequence = 1_000;

async function seedEvents(fromMs: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const at = fromMs + i * 60_000 + 123;
    const id = uuidv7({ msecs: at });
    const failed = i % 3 === 0;
    ids.push(id);
    await pool.query(
      `INSERT INTO webhook_logs (id, sequence, account_id, api_key_id, event, payload, request_id,
         status, order_keys, attempts, notify_on_finish, received_at, started_at, finished_at,
         result, error, last_replayed_at, replays)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [
        id,
        i === 0 ? '9007199254740993' : String((sequence += 1)),
        accountId,
        i % 2 === 0 ? apiKeyId : null,
        i % 4 === 1 ? null : 'article.create',
        i === 0 ? PAYLOAD : JSON.stringify({ slug: `s-${i}` }),
        `req-${i}`,
        failed ? 'failed' : 'succeeded',
        [[`s-${i}`, 'ünï "q"'], [], null][i % 3],
        i % 3,
        i % 2 === 1,
        new Date(at).toISOString(),
        i === 2 ? null : new Date(at + 1).toISOString(),
        new Date(at + 999).toISOString(),
        failed ? null : JSON.stringify({ articleId: id }),
        failed ? JSON.stringify({ code: 'X', message: 'no\nway' }) : null,
        i === 3 ? new Date(at + 5_000).toISOString() : null,
        i === 3 ? 2 : 0,
      ],
    );
    for (let number = 1; number <= (i % 3) + 1; number += 1)
      await pool.query(
        `INSERT INTO event_attempts (event_id, number, started_at, finished_at, outcome, error)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb)`,
        [
          id,
          number,
          new Date(at + number).toISOString(),
          number === 2 ? null : new Date(at + 10 * number).toISOString(),
          number === 2 ? null : 'failed',
          number === 1 ? '{"n": 1e400}' : null,
        ],
      );
  }
  return ids;
}

/** Every row of a range, as PostgreSQL's own JSON of it: equal text is an equal row. */
async function rowsIn(
  fromMs: number | null,
  toMs: number,
): Promise<Record<EventLogTable, string[]>> {
  const read = async (table: EventLogTable, key: string, order: string) =>
    (
      await pool.query<{ row: string }>(
        `SELECT to_jsonb(t)::text AS row FROM ${table} t WHERE ${key} >= $1 AND ${key} < $2 ORDER BY ${order}`,
        [idBoundaryAt(fromMs ?? 0), idBoundaryAt(toMs)],
      )
    ).rows.map((r) => r.row);
  return {
    webhook_logs: await read('webhook_logs', 'id', 'id'),
    event_attempts: await read('event_attempts', 'event_id', 'event_id, number'),
  };
}

async function retention(archive: Archiver): Promise<RetentionReport> {
  // A killed process's lock lasts until PostgreSQL notices its connection is gone.
  for (let tries = 0; tries < 50; tries += 1) {
    const report = await withPartitionLock(pool, (client) =>
      runRetention(client, { retentionDays: 30, archive, now: NOW }),
    );
    if (report !== undefined) return report;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the partition lock stayed taken');
}

const manifestOf = async (name: string, at = dir): Promise<ArchiveManifest> =>
  ArchiveManifestSchema.parse(
    JSON.parse(await readFile(join(at, `${name}.manifest.json`), 'utf8')),
  );
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const tablesNamed = async (pattern: string) =>
  (
    await pool.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relname LIKE $1 AND relkind = 'r' ORDER BY 1`,
      [pattern],
    )
  ).rows.map((r) => r.name);
const restoreCli = (...args: string[]) =>
  runCommand('pnpm', ['-s', 'events:restore', ...args], {
    env: { DATABASE_URL: scratch.url, INIT_CWD: undefined },
    timeoutMs: 60_000,
  });

describe('archiving expired periods and restoring them', () => {
  const before: Array<Record<EventLogTable, string[]>> = [];
  let failedId: string;

  it('retention archives each expired period (gzipped NDJSON and a manifest) before dropping it', async () => {
    for (const [i, period] of PERIODS.entries()) {
      const ids = await seedEvents(period.fromMs ?? period.toMs - 3 * DAY, 7 + i);
      failedId ??= ids[0]!;
      before.push(await rowsIn(period.fromMs, period.toMs));
    }
    expect(before.map((rows) => rows.event_attempts.length)).toEqual([13, 15, 18]);

    const report = await retention(createArchiver(pool, dir, { pageRows: 3 }));

    expect(report.dropped).toEqual(PERIODS.map((p) => p.name));
    expect((await readdir(dir)).sort()).toEqual(
      PERIODS.flatMap((p) => [`${p.name}.manifest.json`, `${p.name}.ndjson.gz`]).sort(),
    );
    for (const [i, period] of PERIODS.entries()) {
      const manifest = await manifestOf(period.name);
      const data = await readFile(join(dir, manifest.file));
      expect(manifest).toMatchObject({
        format: 1,
        file: `${period.name}.ndjson.gz`,
        sha256: sha256(data),
        bytes: data.length,
        rows: { webhook_logs: 7 + i, event_attempts: before[i]!.event_attempts.length },
        range: { fromMs: period.fromMs, toMs: period.toMs },
      });
      const lines = gunzipSync(data).toString('utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(manifest.rows.webhook_logs + manifest.rows.event_attempts);
      const first = JSON.parse(lines[0]!) as { table: string; row: Record<string, unknown> };
      expect(first.table).toBe('webhook_logs');
      expect(first.row.sequence).toBe('9007199254740993');
      expect(JSON.parse(lines.at(-1)!)).toMatchObject({ table: 'event_attempts' });
      expect(await rowsIn(period.fromMs, period.toMs)).toEqual({
        webhook_logs: [],
        event_attempts: [],
      });
    }
  });

  it('restores every column of both tables exactly, as restored partitions with the indexes of any other', async () => {
    for (const [i, period] of PERIODS.entries()) {
      const report = await restoreArchive(pool, join(dir, `${period.name}.ndjson.gz`));
      expect(report.partitions).toEqual({
        webhook_logs: restoredPartitionName('webhook_logs', period.fromMs),
        event_attempts: restoredPartitionName('event_attempts', period.fromMs),
      });
      expect(report.rows.webhook_logs).toBe(7 + i);
      expect(await rowsIn(period.fromMs, period.toMs)).toEqual(before[i]);
    }
    const restored = (await listPartitions(pool)).filter((p) => p.restored);
    expect(restored.map((p) => [p.name, p.fromMs, p.toMs])).toEqual(
      PERIODS.flatMap((p) =>
        ['event_attempts', 'webhook_logs'].map((t) => [
          restoredPartitionName(t as EventLogTable, p.fromMs),
          p.fromMs,
          p.toMs,
        ]),
      ),
    );
    const indexes = async (table: string) =>
      (await pool.query(`SELECT 1 FROM pg_indexes WHERE tablename = $1`, [table])).rowCount;
    const live = partitionName('webhook_logs', TODAY, 'day');
    expect(await indexes('webhook_logs_rlegacy')).toBe(await indexes(live));
    // Operator search by slug reads the restored partition's GIN index like any other.
    const { rows } = await pool.query(
      `SELECT id FROM webhook_logs WHERE order_keys @> ARRAY['s-3']`,
    );
    expect(rows).toHaveLength(3);
  });

  it('refuses to restore an archive twice, and duplicates nothing', async () => {
    const file = join(dir, `${PERIODS[1]!.name}.ndjson.gz`);
    await expect(restoreArchive(pool, file)).rejects.toThrow(
      /is already restored, as webhook_logs_r/,
    );
    expect(await rowsIn(PERIODS[1]!.fromMs, PERIODS[1]!.toMs)).toEqual(before[1]);
  });

  it('refuses an archive whose bytes differ from its manifest, or that has no manifest', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'event-archive-bad-'));
    try {
      const name = PERIODS[2]!.name;
      const data = await readFile(join(dir, `${name}.ndjson.gz`));
      const middle = Math.floor(data.length / 2);
      data[middle] = data[middle]! ^ 0xff;
      await writeFile(join(elsewhere, `${name}.ndjson.gz`), data);
      await copyFile(join(dir, `${name}.manifest.json`), join(elsewhere, `${name}.manifest.json`));
      await expect(restoreArchive(pool, join(elsewhere, `${name}.ndjson.gz`))).rejects.toThrow(
        /does not match its manifest/,
      );
      const cli = await restoreCli(join(elsewhere, `${name}.ndjson.gz`));
      expect(cli.code).toBe(1);
      expect(cli.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^events:restore failed: .*does not match its manifest/),
      ]);
      await rm(join(elsewhere, `${name}.manifest.json`));
      await expect(restoreArchive(pool, join(elsewhere, `${name}.ndjson.gz`))).rejects.toThrow(
        /no manifest beside/,
      );
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  }, 60_000);

  it('keeps restored partitions through retention; replay works on their events', async () => {
    const report = await retention(createArchiver(pool, dir));
    expect(report.dropped).toEqual([]);
    expect((await listPartitions(pool)).filter((p) => p.restored)).toHaveLength(6);

    const db = createDatabase({ url: scratch.url, poolSize: 1 });
    try {
      const requeued = await replayFailed(db, Prisma.sql`id = ${failedId}::uuid`, 10);
      expect(requeued.map((event) => event.id)).toEqual([failedId]);
    } finally {
      await db.close();
    }
    const { rows } = await pool.query(
      `SELECT status, replays, sequence::text FROM webhook_logs WHERE id = $1`,
      [failedId],
    );
    expect(rows).toEqual([{ status: 'queued', replays: 1, sequence: '9007199254740993' }]);
    await expect(dropRestored(pool, 'webhook_logs_rlegacy')).rejects.toThrow(/1 unfinished event/);
    // What the worker would do: the event fails again, and leaves its line.
    await pool.query(`DELETE FROM pending_order_keys WHERE event_id = $1`, [failedId]);
    await pool.query(`UPDATE webhook_logs SET status = 'failed' WHERE id = $1`, [failedId]);
  });

  it('drops a restored pair, restores through the CLI, and refuses ranges the log still has', async () => {
    const period = PERIODS[1]!;
    const restored = restoredPartitionName('webhook_logs', period.fromMs);
    await expect(dropRestored(pool, period.name)).rejects.toThrow(/is not a restored partition/);

    const dropped = await restoreCli('--drop', restored);
    expect(dropped.stderr).toBe('');
    expect(dropped.stdout.trim()).toBe(
      `dropped ${restored} and ${restoredPartitionName('event_attempts', period.fromMs)}`,
    );
    expect(await tablesNamed(`%_r${restored.slice(-8)}`)).toEqual([]);

    // pnpm runs the script from the repository root: a relative path is read from there.
    const file = join(dir, `${period.name}.ndjson.gz`);
    const again = await restoreCli(relative(REPO_ROOT, file));
    expect(again.stderr).toBe('');
    expect(again.stdout).toMatch(
      new RegExp(`^restored 8 event\\(s\\) and 15 attempt\\(s\\) from ${file} into ${restored}`),
    );
    expect(await rowsIn(period.fromMs, period.toMs)).toEqual(before[1]);

    await dropRestored(pool, restored);
    for (const table of EVENT_LOG_TABLES)
      await createPartition(pool, table, period.fromMs!, period.toMs, 'day');
    await expect(restoreArchive(pool, file)).rejects.toThrow(
      new RegExp(`overlaps partition\\(s\\) the log still has: .*${period.name}`),
    );
    expect(await tablesNamed(`%_r${restored.slice(-8)}`)).toEqual([]);
    for (const table of [...EVENT_LOG_TABLES].reverse())
      await dropPartition(table, partitionName(table, period.fromMs!, 'day'));
  }, 60_000);
});

describe('an archive interrupted part-way', () => {
  const isTemp = (file: string) => file.endsWith('.tmp');

  it('fails without a manifest, and the next retention run writes a complete archive', async () => {
    const fromMs = TODAY - 60 * DAY;
    const name = partitionName('webhook_logs', fromMs, 'day');
    for (const table of EVENT_LOG_TABLES)
      await createPartition(pool, table, fromMs, fromMs + DAY, 'day');
    const at = await mkdtemp(join(tmpdir(), 'event-archive-fail-'));
    try {
      await seedEvents(fromMs, 40);
      const rows = await rowsIn(fromMs, fromMs + DAY);
      // The connection is lost after two pages of rows have gone to the file.
      let pages = 0;
      const flaky = new Proxy(pool, {
        get: (target, key) =>
          key !== 'query'
            ? Reflect.get(target, key)
            : (text: string, values?: unknown[]) =>
                /LIMIT \$1/.test(text) && ++pages > 2
                  ? Promise.reject(new Error('connection lost'))
                  : target.query(text, values),
      });
      await expect(retention(createArchiver(flaky, at, { pageRows: 5 }))).rejects.toThrow(
        'connection lost',
      );
      expect(await readdir(at)).toEqual([]);
      expect(await tablesNamed(`%_p${name.slice(-8)}`)).toHaveLength(2);

      // What a crash at other moments leaves: a data file never marked complete, a temp
      // manifest. Neither may survive, nor pass for the archive.
      await writeFile(join(at, `${name}.ndjson.gz`), 'half');
      await writeFile(join(at, `${name}.manifest.json.tmp`), '{"format"');
      const report = await retention(createArchiver(pool, at, { pageRows: 7 }));
      expect(report.dropped).toEqual([name]);
      expect((await readdir(at)).sort()).toEqual([`${name}.manifest.json`, `${name}.ndjson.gz`]);
      const manifest = await manifestOf(name, at);
      expect(manifest.sha256).toBe(sha256(await readFile(join(at, manifest.file))));
      expect(manifest.rows).toEqual({
        webhook_logs: 40,
        event_attempts: rows.event_attempts.length,
      });
      await restoreArchive(pool, join(at, manifest.file));
      expect(await rowsIn(fromMs, fromMs + DAY)).toEqual(rows);
    } finally {
      await rm(at, { recursive: true, force: true });
    }
  });

  it('leaves only a temp file when its process is killed mid-write; the next run replaces it', async () => {
    const fromMs = TODAY - 58 * DAY;
    const name = partitionName('webhook_logs', fromMs, 'day');
    for (const table of EVENT_LOG_TABLES)
      await createPartition(pool, table, fromMs, fromMs + DAY, 'day');
    const at = join(dir, 'killed');
    await mkdir(at);
    // 2,000 events of 1 kB each that gzip cannot shrink much: the file grows page by page.
    await pool.query(
      `INSERT INTO webhook_logs (id, sequence, account_id, payload, request_id, status)
       SELECT (lpad(to_hex($1::bigint + i), 12, '0') || '7' || substr(md5(i::text), 1, 3) || '8'
               || substr(md5(i::text), 4, 15))::uuid,
              i, $2, jsonb_build_object('body', (SELECT string_agg(md5(random()::text || g), '')
                                                FROM generate_series(i, i + 31) AS g)),
              'r' || i, 'succeeded'
       FROM generate_series(1, 2000) AS i`,
      [fromMs, accountId],
    );
    // The child runs retention, and kills itself (no clean-up of any kind can run) when
    // it asks for the sixth page, once bytes of the earlier ones are in the temp file.
    const child = await runCommand(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', KILLED_ARCHIVER],
      {
        // Where @ingest/event-log resolves.
        cwd: join(REPO_ROOT, 'test'),
        env: {
          DATABASE_URL: scratch.url,
          ARCHIVE_DIR: at,
          TEMP_FILE: join(at, `${name}.ndjson.gz.tmp`),
          NOW: String(NOW),
        },
      },
    );
    expect(child.stderr).toBe('');
    expect(child.code).toBeNull();
    const left = await readdir(at);
    expect(left).toEqual([`${name}.ndjson.gz.tmp`]);
    expect((await stat(join(at, left[0]!))).size).toBeGreaterThan(0);

    const report = await retention(createArchiver(pool, at));
    expect(report.dropped).toEqual([name]);
    expect((await readdir(at)).filter(isTemp)).toEqual([]);
    const manifest = await manifestOf(name, at);
    const data = await readFile(join(at, manifest.file));
    expect(manifest.sha256).toBe(sha256(data));
    expect(manifest.rows).toEqual({ webhook_logs: 2000, event_attempts: 0 });
    expect(gunzipSync(data).toString('utf8').trimEnd().split('\n')).toHaveLength(2000);
  });
});

const KILLED_ARCHIVER = `
  import { stat } from 'node:fs/promises';
  import { setTimeout as sleep } from 'node:timers/promises';
  import pg from 'pg';
  import { createArchiver } from '@ingest/event-archive';
  import { runRetention, withPartitionLock } from '@ingest/event-log';
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  let pages = 0;
  const dying = new Proxy(pool, {
    get: (target, key) => key !== 'query' ? Reflect.get(target, key) : async (text, values) => {
      if (/LIMIT \\$1/.test(text) && ++pages === 6) {
        while (((await stat(process.env.TEMP_FILE).catch(() => undefined))?.size ?? 0) === 0)
          await sleep(10);
        process.kill(process.pid, 'SIGKILL');
      }
      return target.query(text, values);
    },
  });
  await withPartitionLock(pool, (client) => runRetention(client, {
    retentionDays: 30,
    now: Number(process.env.NOW),
    archive: createArchiver(dying, process.env.ARCHIVE_DIR, { pageRows: 100 }),
  }));
  console.error('the archive finished: the child was meant to die first');
`;
