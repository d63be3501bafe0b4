// What the retention run locks, seen two ways: every statement the maintenance sends,
// timed on its own connection, and pg_locks sampled from another one (locks on the event
// log's tables that block writers, and any lock a backend waits for).
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

export interface TimedStatement {
  sql: string;
  ms: number;
}

/**
 * A pool whose connections time each statement (into `statements`) and report their
 * backend's pid (into `pids`): handed to maintainPartitions, which takes one connection.
 */
export function timedPool(
  connectionString: string,
  statements: TimedStatement[],
  pids: number[],
): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 1 });
  pool.on('error', () => {});
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const patched = new WeakSet<pg.PoolClient>();
  const timedConnect = async (): Promise<pg.PoolClient> => {
    const client = await connect();
    if (patched.has(client)) return client;
    patched.add(client);
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    if (rows[0] !== undefined && !pids.includes(rows[0].pid)) pids.push(rows[0].pid);
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    const timed = async (...args: unknown[]) => {
      const started = performance.now();
      try {
        return await query(...args);
      } finally {
        const first = args[0];
        const text = typeof first === 'string' ? first : String((first as { text?: string }).text);
        statements.push({ sql: text.replace(/\s+/g, ' ').trim(), ms: performance.now() - started });
      }
    };
    Object.assign(client, { query: timed });
    return client;
  };
  Object.assign(pool, { connect: timedConnect });
  return pool;
}

/** The tables the accept path and the workers write, besides the partitions. */
const WRITTEN_TABLES = ['webhook_logs', 'event_attempts', 'pending_order_keys', 'idempotency_keys'];

/** Modes that conflict with the ROW EXCLUSIVE lock every INSERT takes. */
const BLOCKING_MODES = [
  'ShareLock',
  'ShareRowExclusiveLock',
  'ExclusiveLock',
  'AccessExclusiveLock',
];

export interface LockSpan {
  pid: number;
  relation: string;
  mode: string;
  granted: boolean;
  /** From the first sample that saw it to the last (0 when one sample saw it): a lower bound. */
  ms: number;
  query: string;
}

export interface LockSampling {
  intervalMs: number;
  samples: number;
  /** Writer-blocking locks held on the parents, pending_order_keys or idempotency_keys. */
  parentLocks: LockSpan[];
  /** Writer-blocking locks held on the live day's partitions (and those made ahead). */
  liveLocks: LockSpan[];
  /** Writer-blocking locks held on the other partitions (the history). */
  partitionLocks: LockSpan[];
  /** Locks a backend waited for (not granted), on any relation of the database. */
  waits: LockSpan[];
}

const SAMPLE_SQL = `
  SELECT l.pid, c.relname AS relation, l.mode, l.granted, coalesce(a.query, '') AS query
  FROM pg_locks l
  JOIN pg_class c ON c.oid = l.relation
  LEFT JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'relation'
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.pid <> pg_backend_pid()
    AND (NOT l.granted OR (l.mode = ANY($1::text[])
         AND (c.relname = ANY($2::text[])
              OR c.relname LIKE 'webhook\\_logs\\_%' OR c.relname LIKE 'event\\_attempts\\_%')))`;

/**
 * Samples pg_locks every `intervalMs` until stopped. A lock seen in consecutive samples
 * is one span; one shorter than the interval may be missed, which the statement timings
 * (an upper bound) cover.
 */
export function sampleLocks(client: pg.Client, livePartitions: string[], intervalMs = 20) {
  const open = new Map<string, LockSpan & { first: number; last: number }>();
  const spans: LockSpan[] = [];
  let samples = 0;
  let stopped = false;
  const close = (key: string) => {
    const span = open.get(key);
    if (span === undefined) return;
    const { first, last, ...rest } = span;
    spans.push({ ...rest, ms: last - first });
    open.delete(key);
  };
  const loop = (async () => {
    while (!stopped) {
      const now = performance.now();
      const { rows } = await client.query<Omit<LockSpan, 'ms'>>(SAMPLE_SQL, [
        BLOCKING_MODES,
        WRITTEN_TABLES,
      ]);
      samples += 1;
      const seen = new Set<string>();
      for (const row of rows) {
        // The statement too: consecutive statements taking the same lock are two spans.
        const key = `${row.pid}|${row.relation}|${row.mode}|${row.granted}|${row.query}`;
        seen.add(key);
        const span = open.get(key);
        if (span) span.last = now;
        else open.set(key, { ...row, ms: 0, first: now, last: now });
      }
      for (const key of [...open.keys()]) if (!seen.has(key)) close(key);
      await sleep(Math.max(0, intervalMs - (performance.now() - now)));
    }
  })();
  return {
    async stop(): Promise<LockSampling> {
      stopped = true;
      await loop;
      for (const key of [...open.keys()]) close(key);
      const longest = (list: LockSpan[], n = 10) => list.sort((a, b) => b.ms - a.ms).slice(0, n);
      const isParent = (s: LockSpan) => WRITTEN_TABLES.includes(s.relation);
      const isLive = (s: LockSpan) => livePartitions.includes(s.relation);
      const held = spans.filter((s) => s.granted);
      return {
        intervalMs,
        samples,
        parentLocks: longest(held.filter(isParent)),
        liveLocks: longest(held.filter(isLive)),
        partitionLocks: longest(held.filter((s) => !isParent(s) && !isLive(s))),
        waits: longest(
          spans.filter((s) => !s.granted),
          40,
        ),
      };
    },
  };
}
