// Synthetic event history, generated in SQL: N events spread evenly over the 40 days
// before the live day, one daily partition at a time. Each day is loaded as a table of its
// own (no index, no constraint: plain appends) and then attached, which builds its
// indexes once, sorted, and checks its rows in one pass each, instead of maintaining nine
// indexes row by row through the parent.
import type pg from 'pg';
import { createPartition, maintainPartitions, partitionName } from '@ingest/event-log';
import { articleCreate } from './article-payloads.js';
import { DAY_MS } from './history-partitions.js';

export const HISTORY_DAYS = 40;

/** Whose events the history holds: the bench's own publishers, so receipts can be read. */
export interface HistoryOwners {
  /** API key ids, and the account of each, in the same order. */
  keyIds: string[];
  keyAccounts: string[];
}

/** Paragraphs of the bench's own `article.create` bodies, so payloads have their size. */
const PARAGRAPHS = [
  ...new Set(Array.from({ length: 600 }, (_, n) => articleCreate('h', n).body).flat()),
];

/**
 * Rows `$4 + 0 .. $4 + $3 - 1` (`n`, the event's ordinal, is also its `sequence`), the k-th
 * received at `$1 + k * $2` ms. Every choice is a function of `n`, so a run is reproducible
 * but for the ids' random bits: 16 in 20 events are `article.create` (about 2 KB, as the
 * bench sends), 3 updates and 1 delete of an earlier slug; 1 in 200 failed, 1 in 500
 * rejected, the rest succeeded. The id is a UUIDv7 of the receive time: the millisecond
 * in the first 48 bits, version 7, then the random bits of a v4 uuid (whose variant
 * nibble is already 10xx).
 */
const EVENTS_SQL = (table: string) => `
  INSERT INTO ${table} (id, sequence, account_id, api_key_id, event, payload, request_id, status,
    order_keys, attempts, notify_on_finish, received_at, started_at, finished_at, result, error,
    replays)
  SELECT (lpad(to_hex(e.ms), 12, '0') || '7' || substr(e.r, 14, 3) || substr(e.r, 17, 16))::uuid,
    e.n, ($6::uuid[])[e.k], ($5::uuid[])[e.k], e.event,
    CASE e.kind
      WHEN 'create' THEN jsonb_build_object(
        'title', left(p.first, 48) || ' ' || e.n,
        'body', to_jsonb(p.body[1:4 + e.n % 3]),
        'excerpt', left(p.first, 160),
        'category', (ARRAY['News','Sport','Culture','Business','Science','Local','Opinion',
                           'Travel'])[e.n % 8 + 1],
        'slug', e.slug)
      WHEN 'update' THEN jsonb_build_object('slug', e.slug, 'title', 'Updated headline ' || e.n,
                                            'category', 'Updated')
      ELSE jsonb_build_object('slug', e.slug)
    END,
    e.request_id, e.status,
    CASE WHEN e.status = 'rejected' THEN '{}'::text[] ELSE ARRAY[e.slug] END,
    CASE WHEN e.status = 'rejected' THEN 0 ELSE 1 END, false,
    e.received_at,
    CASE WHEN e.status <> 'rejected' THEN e.received_at + (5 + e.n % 40) * interval '1 ms' END,
    e.received_at + (7 + e.n % 40 + e.n % 15) * interval '1 ms',
    CASE WHEN e.status = 'succeeded' THEN jsonb_build_object('type', 'article',
      'id', e.r::uuid, 'slug', e.slug) || CASE WHEN e.kind = 'delete'
        THEN '{"deleted": true}'::jsonb ELSE '{}'::jsonb END END,
    CASE e.status
      WHEN 'failed' THEN '{"code": "ARTICLE_NOT_FOUND", "message": "No article with this slug"}'::jsonb
      WHEN 'rejected' THEN '{"code": "VALIDATION_FAILED", "message": "The event is not valid",
        "errors": [{"path": "data.title", "message": "Required"}]}'::jsonb
    END,
    0
  FROM (
    SELECT g.n, g.ms, g.r, g.n % $7::int + 1 AS k, gen_random_uuid()::text AS request_id,
      timestamptz 'epoch' + g.ms * interval '1 ms' AS received_at,
      CASE WHEN g.n % 20 < 16 THEN 'create' WHEN g.n % 20 < 19 THEN 'update' ELSE 'delete' END AS kind,
      CASE WHEN g.n % 20 < 16 THEN 'article.create' WHEN g.n % 20 < 19 THEN 'article.update'
           ELSE 'article.delete' END AS event,
      'h-' || CASE WHEN g.n % 20 < 16 THEN g.n ELSE greatest(g.n - 1000 - g.n % 20, 0) END AS slug,
      CASE WHEN g.n % 500 = 3 THEN 'rejected' WHEN g.n % 200 = 17 THEN 'failed'
           ELSE 'succeeded' END AS status
    FROM (SELECT $4::bigint + i AS n, $1::bigint + floor(i * $2::float8)::bigint AS ms,
                 replace(gen_random_uuid()::text, '-', '') AS r
          FROM generate_series(0, $3::int - 1) AS s(i)) AS g
  ) AS e
  CROSS JOIN LATERAL (
    SELECT ($8::text[])[(e.n * 7) % $9::int + 1] AS first,
      ARRAY[${[0, 1, 2, 3, 4, 5].map((j) => `($8::text[])[(e.n * 7 + ${j * 31}) % $9::int + 1]`).join(', ')}]
        AS body
  ) AS p`;

/** One attempt per event that reached the queue (a rejected call never did). */
const ATTEMPTS_SQL = (attempts: string, logs: string) => `
  INSERT INTO ${attempts} (event_id, number, started_at, finished_at, outcome, error)
  SELECT id, 1, started_at, finished_at, status, error FROM ${logs}
  WHERE status <> 'rejected' AND id >= $1::uuid ORDER BY id`;

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

interface EventRange {
  fromMs: number;
  toMs: number;
  count: number;
  /** Ordinal of the first event: its `sequence`, and what its slug is made of. */
  firstOrdinal: number;
}

/** Inserts `range.count` events received evenly over [fromMs, toMs) into `table`. */
async function insertEvents(
  on: pg.PoolClient,
  table: string,
  range: EventRange,
  owners: HistoryOwners,
): Promise<void> {
  await on.query(EVENTS_SQL(table), [
    range.fromMs,
    (range.toMs - range.fromMs) / range.count,
    range.count,
    range.firstOrdinal,
    owners.keyIds,
    owners.keyAccounts,
    owners.keyIds.length,
    PARAGRAPHS,
    PARAGRAPHS.length,
  ]);
}

/**
 * Recent events, made like the history's, through the parents (so into the live day's
 * partitions): what receipts and searches read on the empty log, and again beside the
 * history, with the same slugs (`firstOrdinal` the same in both).
 */
export async function seedRecent(
  db: pg.Pool,
  range: EventRange,
  owners: HistoryOwners,
): Promise<void> {
  const client = await db.connect();
  try {
    const { rows } = await client.query<{ bound: string }>(
      `SELECT (lpad(to_hex($1::bigint), 12, '0') || '00000000000000000000') AS bound`,
      [range.fromMs],
    );
    await insertEvents(client, 'webhook_logs', range, owners);
    await client.query(ATTEMPTS_SQL('event_attempts', 'webhook_logs'), [
      rows[0]?.bound ?? NIL_UUID,
    ]);
  } finally {
    client.release();
  }
}

export interface DayFill {
  day: string;
  events: number;
  /** Rows written (events, then attempts), vacuumed and analyzed. */
  loadSeconds: number;
  /** ATTACH of both (the events' indexes built, their range and foreign keys checked). */
  attachSeconds: number;
}

export interface FillReport {
  events: number;
  days: number;
  lanes: number;
  seconds: number;
  perDay: DayFill[];
  /** How long the database took to settle after the fill (settleAfterFill). */
  settleSeconds?: number;
  /** The maintenance round that listed the filled partitions' slugs (listHistorySlugs). */
  slugLists?: SlugLists;
}

export interface SlugLists {
  seconds: number;
  partitions: number;
  keys: number;
  /** webhook_log_partition_keys with its indexes. */
  bytes: number;
}

/** Days loaded at once, each on a connection of its own: one per core of this machine. */
const LANES = 2;

type Serial = <T>(work: () => Promise<T>) => Promise<T>;

/** Runs the works given to it one after the other, in the order given. */
function serial(): Serial {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>) => {
    const run = last.then(work, work);
    last = run.catch(() => undefined);
    return run;
  };
}

async function fillDay(
  client: pg.PoolClient,
  attaching: Serial,
  d: number,
  events: number,
  liveFromMs: number,
  owners: HistoryOwners,
): Promise<DayFill> {
  const fromMs = liveFromMs - (HISTORY_DAYS - d) * DAY_MS;
  const firstOrdinal = Math.floor((d * events) / HISTORY_DAYS) + 1;
  const count = Math.floor(((d + 1) * events) / HISTORY_DAYS) + 1 - firstOrdinal;
  const logs = partitionName('webhook_logs', fromMs, 'day');
  const attempts = partitionName('event_attempts', fromMs, 'day');
  const started = performance.now();
  await client.query(`CREATE TABLE ${logs} (LIKE webhook_logs)`);
  await insertEvents(client, logs, { fromMs, toMs: fromMs + DAY_MS, count, firstOrdinal }, owners);
  // What autovacuum would do before anyone reads them (it is off on this server): hint
  // bits and the visibility map, so that the first searches do not pay for setting them,
  // and statistics, which stay with the table once attached. Like autovacuum, nothing
  // analyzes the parents (it never processes a partitioned table).
  await client.query(`VACUUM (ANALYZE) ${logs}`);
  const loaded = performance.now();
  // createPartition reuses the table of its name and attaches it. One attach at a time:
  // two at once deadlock on the parents and the tables their foreign keys reference.
  const attachSeconds = await attaching(async () => {
    const attachStarted = performance.now();
    await createPartition(client, 'webhook_logs', fromMs, fromMs + DAY_MS, 'day');
    await createPartition(client, 'event_attempts', fromMs, fromMs + DAY_MS, 'day');
    return (performance.now() - attachStarted) / 1000;
  });
  // The attempts go into their partition once it is attached, and empty: attaching it
  // full would check its foreign key with a hash anti-join over every partition of
  // webhook_logs (all of the history so far, once a day). The lane's session has the
  // foreign-key triggers off (session_replication_role): the key holds by construction,
  // each attempt made from an event of the day.
  const attemptsStarted = performance.now();
  await client.query(ATTEMPTS_SQL(attempts, logs), [NIL_UUID]);
  await client.query(`VACUUM (ANALYZE) ${attempts}`);
  return {
    day: logs,
    events: count,
    loadSeconds: (loaded - started + performance.now() - attemptsStarted) / 1000,
    attachSeconds,
  };
}

/**
 * `events` events over the HISTORY_DAYS days before `liveFromMs` (the start of the live
 * day, which stays the bench's own), one partition a day, each loaded apart and then
 * attached with the event log's own createPartition. The daily partitions must not
 * exist yet.
 */
export async function fillHistory(
  db: pg.Pool,
  events: number,
  liveFromMs: number,
  owners: HistoryOwners,
  log: (line: string) => void,
): Promise<FillReport> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const perDay: DayFill[] = [];
  let next = 0;
  const attaching = serial();
  const lane = async () => {
    const client = await db.connect();
    try {
      // Index builds at ATTACH sort in memory rather than in temporary files.
      await client.query(`SET maintenance_work_mem = '256MB'`);
      await client.query('SET synchronous_commit = off');
      // Foreign-key triggers off for the attempts (see fillDay); needs a superuser.
      await client.query('SET session_replication_role = replica');
      for (let d = next++; d < HISTORY_DAYS; d = next++) {
        const day = await fillDay(client, attaching, d, events, liveFromMs, owners);
        perDay.push(day);
        log(
          `  history ${perDay.length}/${HISTORY_DAYS} ${day.day}: ` +
            `${day.events.toLocaleString('en-US')} events, load ${day.loadSeconds.toFixed(1)} s, ` +
            `attach ${day.attachSeconds.toFixed(1)} s (${seconds().toFixed(0)} s so far)`,
        );
      }
    } finally {
      // The connection goes back to the bench's pool: none of these settings with it.
      await client.query('RESET ALL').catch(() => undefined);
      client.release();
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  // Live events draw sequences after the history's.
  await db.query(
    `SELECT setval('webhook_logs_sequence_seq', greatest($1::bigint, last_value))
     FROM webhook_logs_sequence_seq`,
    [events + 1],
  );
  perDay.sort((a, b) => a.day.localeCompare(b.day));
  return { events, days: HISTORY_DAYS, lanes: LANES, seconds: seconds(), perDay };
}

const SETTLE_LIMIT_MS = 180_000;

/**
 * Waits for the database to be done with the fill before anything is measured on it: the
 * slug lists are vacuumed, a checkpoint writes out the gigabytes the fill left dirty, then
 * autovacuum workers are waited for (up to 3 minutes). Measured right after the fill, the history's figures
 * carried that write-back (a search of the newest partition alone, which the history does
 * not touch, ran at 1.8x its empty-log p50), not the effect of the history itself.
 */
export async function settleAfterFill(db: pg.Pool): Promise<number> {
  const started = performance.now();
  // The slug lists of 40 days were just written at once (8 million rows at 10 million
  // events; a worker writes one day's a day): vacuumed and analyzed as each filled day
  // was, which is what autovacuum would do (it is off on this server), so that no read
  // measured later is the first to set their hint bits.
  await db.query('VACUUM (ANALYZE) webhook_log_partition_keys, webhook_log_key_summaries');
  await db.query('CHECKPOINT');
  while (performance.now() - started < SETTLE_LIMIT_MS) {
    const { rows } = await db.query<{ busy: number }>(
      `SELECT count(*)::int AS busy FROM pg_stat_activity
       WHERE backend_type = 'autovacuum worker' AND datname = current_database()`,
    );
    if ((rows[0]?.busy ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return (performance.now() - started) / 1000;
}

/**
 * Runs the maintenance round a worker would run after the filled days closed (retention
 * off: the retention run comes later, measured on its own). It lists each filled
 * partition's slugs, which slug searches rule partitions out by; timed, as its cost is
 * one read of every partition.
 */
export async function listHistorySlugs(db: pg.Pool): Promise<SlugLists> {
  const started = performance.now();
  const done = await maintainPartitions(db, { interval: 'day', retentionDays: 0 });
  const seconds = (performance.now() - started) / 1000;
  const { rows } = await db.query<{ keys: number; bytes: number }>(
    `SELECT (SELECT count(*)::int FROM webhook_log_partition_keys) AS keys,
            pg_total_relation_size('webhook_log_partition_keys')::float8 AS bytes`,
  );
  return {
    seconds,
    partitions: done?.summarized.length ?? 0,
    keys: rows[0]?.keys ?? 0,
    bytes: rows[0]?.bytes ?? 0,
  };
}
