// The bench database's event-log partitions in the history mode: the legacy partitions
// out of the way, the live day's (and the coming week's) made, the live ones emptied
// between measurements, and sizes.
import type pg from 'pg';
import {
  createPartition,
  DAY_MS,
  listPartitions,
  periodStart,
  premakePartitions,
  quoted,
  type Partition,
} from '@ingest/event-log';

export { DAY_MS };
/** As the workers keep them (PREMAKE_DAYS in the event log): a week ahead. */
const AHEAD_MS = 7 * DAY_MS;

export const startOfDay = (ms: number) => periodStart(ms, 'day');

/**
 * The migration turns the tables that existed into partitions open below
 * (`webhook_logs_legacy`, FROM MINVALUE to the end of the day it ran): on a database that
 * had events they hold them all. They would also hold every id of the 40 days of history,
 * which must go into daily partitions (those retention drops), so they are detached and
 * dropped first. That is safe only because they are empty, which the history mode makes
 * sure of by running on a bench database created afresh (createBenchDatabase drops and
 * recreates it at set-up): a non-empty one is refused, never dropped. (A migration on an
 * empty database may already have made today's daily partition instead.)
 */
export async function dropLegacyPartitions(db: pg.Pool): Promise<string[]> {
  const below = (await listPartitions(db)).filter((p) => p.fromMs === null);
  // Attempts first: detaching events is refused while a table's rows may reference them.
  const open = [
    ...below.filter((p) => p.table === 'event_attempts'),
    ...below.filter((p) => p.table === 'webhook_logs'),
  ];
  for (const partition of open) {
    const { rows } = await db.query(`SELECT 1 FROM ${quoted(partition.name)} LIMIT 1`);
    if (rows.length > 0) throw new Error(`${partition.name} holds events: not a fresh database`);
  }
  for (const partition of open) {
    await db.query(
      `ALTER TABLE ${quoted(partition.table)} DETACH PARTITION ${quoted(partition.name)}`,
    );
    await db.query(`DROP TABLE ${quoted(partition.name)}`);
  }
  return open.map((p) => p.name);
}

/** The live day's partitions and the coming week's, as the event-log upkeep makes them. */
export async function premakeLive(db: pg.Pool): Promise<string[]> {
  const client = await db.connect();
  try {
    return await premakePartitions(client, { interval: 'day', aheadMs: AHEAD_MS });
  } finally {
    client.release();
  }
}

const pairsFrom = (partitions: Partition[], fromMs: number) =>
  partitions
    .filter((p) => p.table === 'webhook_logs' && p.fromMs !== null && p.fromMs >= fromMs)
    .map((logs) => ({
      logs,
      attempts: partitions.find(
        (p) => p.table === 'event_attempts' && p.fromMs === logs.fromMs && p.toMs === logs.toMs,
      ),
    }));

/**
 * Empties what a measurement wrote, leaving the history before `liveFromMs` alone. A
 * partition cannot be truncated while another table's foreign key points at its parent,
 * so each live partition that holds rows is detached, dropped and made again (no load
 * runs meanwhile): the same empty tables a TRUNCATE would leave.
 */
export async function resetLive(db: pg.Pool, liveFromMs: number): Promise<void> {
  await db.query(
    `TRUNCATE pending_order_keys, idempotency_keys, highlights, articles, categories,
       floor_log, floor_article`,
  );
  for (const { logs, attempts } of pairsFrom(await listPartitions(db), liveFromMs)) {
    const { rows } = await db.query(`SELECT 1 FROM ${quoted(logs.name)} LIMIT 1`);
    if (rows.length === 0) continue;
    for (const partition of [attempts, logs]) {
      if (partition === undefined) continue;
      await db.query(
        `ALTER TABLE ${quoted(partition.table)} DETACH PARTITION ${quoted(partition.name)}`,
      );
      await db.query(`DROP TABLE ${quoted(partition.name)}`);
    }
    const fromMs = logs.fromMs ?? liveFromMs;
    await createPartition(db, 'webhook_logs', fromMs, logs.toMs, 'day');
    if (attempts !== undefined)
      await createPartition(db, 'event_attempts', fromMs, logs.toMs, 'day');
  }
}

/** ANALYZE the live partitions (autovacuum is off on this server): searches plan on them. */
export async function analyzeLive(db: pg.Pool, liveFromMs: number): Promise<void> {
  for (const { logs, attempts } of pairsFrom(await listPartitions(db), liveFromMs)) {
    await db.query(`ANALYZE ${quoted(logs.name)}${attempts ? `, ${quoted(attempts.name)}` : ''}`);
  }
}

export interface Sizes {
  databaseBytes: number;
  /** Every partition of webhook_logs and event_attempts, with their indexes and TOAST. */
  eventLogBytes: number;
  /** The same, of the partitions from the live day on. */
  liveBytes: number;
}

export async function measureSizes(db: pg.Pool, liveFromMs: number): Promise<Sizes> {
  const partitions = await listPartitions(db);
  const live = partitions.filter((p) => p.fromMs !== null && p.fromMs >= liveFromMs);
  const [all, liveOnly, database] = await Promise.all([
    partitionBytes(db, partitions),
    partitionBytes(db, live),
    db.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes'),
  ]);
  return {
    databaseBytes: Number(database.rows[0]?.bytes ?? Number.NaN),
    eventLogBytes: all,
    liveBytes: liveOnly,
  };
}

/** pg_total_relation_size of these partitions, together. */
export async function partitionBytes(db: pg.Pool, partitions: Partition[]): Promise<number> {
  const { rows } = await db.query<{ bytes: string | null }>(
    `SELECT sum(pg_total_relation_size(quote_ident(name)::regclass)) AS bytes
     FROM unnest($1::text[]) AS t(name)`,
    [partitions.map((p) => p.name)],
  );
  return Number(rows[0]?.bytes ?? 0);
}
