import {
  attach,
  listPartitions,
  quoted,
  unfinished,
  type EventLogTable,
  type Partition,
  type Queryable,
} from '@ingest/event-log';
import type pg from 'pg';
import { underPartitionLock, type LockRetry } from './partition-lock.js';

const RESTORED_NAME = /^(?:webhook_logs|event_attempts)_r([0-9a-z]+)$/;

export interface DropReport {
  dropped: string[];
}

/**
 * Drops a restored partition pair (either name of the pair will do; only `_r` names are
 * accepted) the way retention drops an expired period: detached CONCURRENTLY, so the log
 * stays open to reads and writes, then dropped. Refused while it holds an unfinished
 * event (an operator replayed one). Run again, it finishes a drop that stopped half-way.
 */
export async function dropRestored(
  pool: pg.Pool,
  partition: string,
  options: LockRetry = {},
): Promise<DropReport> {
  const suffix = RESTORED_NAME.exec(partition)?.[1];
  if (suffix === undefined)
    throw new Error(
      `${partition} is not a restored partition (webhook_logs_r… or event_attempts_r…); only those may be dropped here`,
    );
  const names: Record<EventLogTable, string> = {
    webhook_logs: `webhook_logs_r${suffix}`,
    event_attempts: `event_attempts_r${suffix}`,
  };
  return underPartitionLock(
    pool,
    'drop',
    async (client) => {
      const existing = await existingTables(client, Object.values(names));
      if (existing.length === 0) throw new Error(`there is no restored partition ${partition}`);
      if (existing.includes(names.webhook_logs)) {
        const { rows } = await client.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM ${quoted(names.webhook_logs)} WHERE ${unfinished()}`,
        );
        const count = rows[0]?.count ?? 0;
        if (count > 0)
          throw new Error(
            `${names.webhook_logs} holds ${count} unfinished event(s) (replayed); drop it once they finish`,
          );
      }
      await detachPair(client, names);
      for (const name of [names.webhook_logs, names.event_attempts])
        await client.query(`DROP TABLE IF EXISTS ${quoted(name)}`);
      return { dropped: existing };
    },
    options,
  );
}

/** Attempts first: their foreign key would forbid detaching the events they reference. */
async function detachPair(client: pg.PoolClient, names: Record<EventLogTable, string>) {
  const attached = async (name: string) =>
    (await listPartitions(client)).find((p) => p.name === name);
  const attempts = await attached(names.event_attempts);
  if (attempts !== undefined) await detach(client, attempts);
  // A detached partition keeps the foreign key it had, to the whole of webhook_logs.
  await dropForeignKeys(client, names.event_attempts);
  const logs = await attached(names.webhook_logs);
  if (logs === undefined) return;
  try {
    // Fails while pending_order_keys points into it: an event was replayed just now.
    await detach(client, logs);
  } catch (error) {
    if (attempts !== undefined) await attach(client, attempts);
    throw error;
  }
}

/** A DETACH CONCURRENTLY that a crash interrupted is finished, not begun again. */
const detach = (client: Queryable, partition: Partition) =>
  client.query(
    `ALTER TABLE ${quoted(partition.table)} DETACH PARTITION ${quoted(partition.name)} ${
      partition.detachPending ? 'FINALIZE' : 'CONCURRENTLY'
    }`,
  );

async function dropForeignKeys(client: Queryable, table: string): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    // The top-level ones only: a key into a partitioned table has a sub-constraint for
    // each partition it references, which goes with it.
    `SELECT conname AS name FROM pg_constraint
     WHERE conrelid = to_regclass($1) AND contype = 'f' AND conparentid = 0`,
    [quoted(table)],
  );
  for (const { name } of rows)
    await client.query(`ALTER TABLE ${quoted(table)} DROP CONSTRAINT IF EXISTS ${quoted(name)}`);
}

async function existingTables(client: Queryable, names: string[]): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class
     WHERE relname = ANY($1::text[]) AND relkind = 'r'
       AND relnamespace = current_schema()::regnamespace
     ORDER BY relname DESC`,
    [names],
  );
  return rows.map((row) => row.name);
}
