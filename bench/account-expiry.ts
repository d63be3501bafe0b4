// `npx tsx bench/account-expiry.ts [EVENTS] [ACCOUNTS]`: what the retention round costs when
// an account keeps its events less long than the longest retention in force. On a
// database of its own (`ingest_bench_expiry`, dropped at the end): daily partitions 60 days
// back; an account keeping 7 days with EVENTS (50,000 by default) finished events 8 to 20
// days old; an account keeping 60 days (so partitions stay) and ACCOUNTS (50) accounts on
// the default 30 days, with 150,000 events between them over the last 40 and 29 days,
// mixed into the same partitions, each event with one attempt. Then three worker rounds
// (maintainPartitions, as apps/worker/src/partition-upkeep.ts calls it, with
// EVENT_LOG_DELETES_PER_ROUND at its default): the time of each, the events and attempts it
// deleted, the time and rows of each DELETE statement, beside a round with no account
// keeping its own; and the plan of one batch's choice. Set BENCH_DATABASE_URL to use
// another server (its database name is replaced). Autovacuum is off on this machine: the
// rounds after the first read over the dead rows the first left.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  createPartition,
  DAY_MS,
  EVENT_LOG_TABLES,
  EXPIRED_EVENTS_PER_ROUND,
  maintainPartitions,
  periodStart,
} from '@ingest/event-log';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { percentile, sortedSamples } from './support/percentiles.js';

const events = Number(process.argv[2] ?? 50_000);
const plainAccounts = Number(process.argv[3] ?? 50);
const base =
  process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/postgres';
const url = Object.assign(new URL(base), { pathname: '/ingest_bench_expiry' }).toString();
const admin = new pg.Client({
  connectionString: Object.assign(new URL(base), { pathname: '/postgres' }).toString(),
});
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS ingest_bench_expiry WITH (FORCE)');
// Migrated as `pnpm db:migrate` migrates any database.
await promisify(execFile)('pnpm', ['--silent', 'db:migrate'], {
  env: { ...process.env, DATABASE_URL: url },
});

const pool = new pg.Pool({ connectionString: url, max: 4 });
/** Every statement of the round that deletes events, with its time and what it deleted. */
const deletes: Array<{ ms: number; events: number }> = [];
pool.on('connect', (client) => {
  type Query = (...args: unknown[]) => Promise<pg.QueryResult<{ events?: number }>>;
  const query: Query = client.query.bind(client);
  const timed = async (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : '';
    if (!text.includes('WITH chosen AS')) return query(...args);
    const started = performance.now();
    const result = await query(...args);
    deletes.push({ ms: performance.now() - started, events: Number(result.rows[0]?.events ?? 0) });
    return result;
  };
  Object.assign(client, { query: timed });
});

try {
  const today = periodStart(Date.now(), 'day');
  for (let ago = 60; ago >= 1; ago -= 1) {
    for (const table of EVENT_LOG_TABLES) {
      await createPartition(pool, table, today - ago * DAY_MS, today - (ago - 1) * DAY_MS, 'day');
    }
  }
  const account = async (handle: string, days: number | null) => {
    const id = randomUUID();
    await pool.query(
      `INSERT INTO accounts (id, email, handle, name, password_hash, retention_days, updated_at)
       VALUES ($1, $2, $3, $3, 'x', $4, now())`,
      [id, `${handle}@bench.test`, handle, days],
    );
    return id;
  };
  const short = await account('short', null);
  const long = await account('long', null);
  const plain = await Promise.all(
    Array.from({ length: plainAccounts }, (_, i) => account(`plain${i}`, null)),
  );
  const payload = JSON.stringify({ slug: 's', title: 't'.repeat(80), body: ['p'.repeat(400)] });
  /** `count` finished events of `accounts` in turn, received evenly from `fromDays` to `toDays` ago. */
  const fill = async (accounts: string[], count: number, fromDays: number, toDays: number) => {
    await pool.query(
      `WITH made AS (
         SELECT g, now() - make_interval(secs => ($4::float8 + ($3::float8 - $4::float8) * g::float8 / $2::int) * 86400) AS at
         FROM generate_series(1, $2::int) g)
       INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, order_keys, received_at)
       SELECT (lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') || '7'
               || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15))::uuid,
              ($1::uuid[])[1 + g % array_length($1::uuid[], 1)], 'article.create', $5::jsonb,
              'bench', CASE WHEN g % 2 = 0 THEN 'succeeded' ELSE 'failed' END, '{s}', at
       FROM made`,
      [accounts, count, fromDays, toDays, payload],
    );
  };
  await fill([short], events, 20, 8);
  await fill([long], 50_000, 40, 0.1);
  await fill(plain, 100_000, 29, 0.1);
  await pool.query(
    `INSERT INTO event_attempts (event_id, number, outcome) SELECT id, 1, 'succeeded' FROM webhook_logs`,
  );
  await pool.query('ANALYZE');
  await pool.query('CHECKPOINT');

  const options = {
    interval: 'day' as const,
    retentionDays: 30,
    retentionBounds: { minDays: 1, maxDays: 3_650 },
    maxDrops: 1,
  };
  // Two rounds before any account keeps its own (the default at 60 days, so that the same
  // partitions stay): the first lists the slugs of every closed partition, once; the
  // second is what a round costs without per-account retention.
  await maintainPartitions(pool, { ...options, retentionDays: 60 });
  const baseline = performance.now();
  await maintainPartitions(pool, { ...options, retentionDays: 60 });
  const baselineMs = performance.now() - baseline;
  await pool.query('UPDATE accounts SET retention_days = 7 WHERE id = $1', [short]);
  await pool.query('UPDATE accounts SET retention_days = 60 WHERE id = $1', [long]);
  console.log(
    `events of the 7-day account, 8 to 20 days old: ${events}; per round at most ${EXPIRED_EVENTS_PER_ROUND}; accounts on the default: ${plainAccounts}`,
  );
  console.log(`a round with no retention of an account's own: ${baselineMs.toFixed(0)} ms`);
  console.log(
    'round  ms      events  attempts  statements  statement ms p50/p99/max  rows/statement max',
  );
  for (let round = 1; round <= 3; round += 1) {
    deletes.length = 0;
    const started = performance.now();
    const done = await maintainPartitions(pool, options);
    const ms = performance.now() - started;
    const times = sortedSamples(deletes.map((d) => d.ms));
    const expired = done?.expired;
    console.log(
      [
        String(round).padEnd(5),
        ms.toFixed(0).padEnd(7),
        String(expired?.events).padEnd(7),
        String(expired?.attempts).padEnd(9),
        String(expired?.statements).padEnd(11),
        times.length === 0
          ? '-'.padEnd(25)
          : `${percentile(times, 0.5).toFixed(1)}/${percentile(times, 0.99).toFixed(1)}/${percentile(times, 1).toFixed(1)}`.padEnd(
              25,
            ),
        Math.max(0, ...deletes.map((d) => d.events)),
      ].join('  '),
    );
  }
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_logs WHERE account_id = $1 AND received_at < now() - interval '7 days'`,
    [short],
  );
  console.log(`left of the 7-day account past 7 days: ${rows[0]?.n}`);

  // The plan of one batch's choice, on a partition where the 7-day account has due events.
  await fill([short], 5_000, 9, 8);
  const day = new Date(today - 9 * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '');
  const plan = await pool.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT ctid, received_at, id FROM webhook_logs_p${day}
     WHERE account_id = $1 AND received_at < now() - interval '7 days'
       AND NOT (status IN ('queued', 'processing'))
     ORDER BY received_at, id LIMIT 2000`,
    [short],
  );
  console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
} finally {
  await pool.end();
  // Connections just closed may still be on their way out: a FORCE drop would end them
  // mid-close, an error nobody listens for any more.
  for (let waited = 0; waited < 5_000; waited += 50) {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'ingest_bench_expiry'`,
    );
    if (rows[0]?.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await admin.query('DROP DATABASE IF EXISTS ingest_bench_expiry WITH (FORCE)');
  await admin.end();
}
