import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';

export interface DatabaseOptions {
  url: string;
  poolSize: number;
  /** How long a query may wait for a free connection before failing, in ms. */
  connectionTimeoutMs?: number;
  /** PostgreSQL cancels any statement running longer than this, in ms. */
  statementTimeoutMs?: number;
}

export interface Database {
  prisma: PrismaClient;
  /** The pool Prisma queries through, for the few statements that need raw SQL. */
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * A Prisma client on the Rust-free runtime: queries are compiled in WebAssembly and run
 * through node-postgres, so no native engine is needed anywhere.
 */
export function createDatabase(options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    // The event log is partitioned, and its hot statements are named prepared statements.
    // After five runs PostgreSQL would give them a generic plan, which in PostgreSQL 15
    // locks every partition and every partition's index at each execution: one worker
    // drained at 0.51-0.62x the floor worker so. A custom plan prunes partitions when it
    // is planned: 0.92x in the same bench.
    //
    // JIT off: no statement of this service runs long enough to gain from it, and a
    // plan's cost estimate is enough to trigger it. In a soak, the apply transaction's
    // lock of heads and runs was estimated at a million rows once the day's partition
    // grew, and PostgreSQL spent 2 s compiling it (116 functions) to run it in 0.1 ms:
    // one worker fell from about 900 to 60 events/s.
    options: '-c plan_cache_mode=force_custom_plan -c jit=off',
    ...(options.statementTimeoutMs === undefined
      ? {}
      : { statement_timeout: options.statementTimeoutMs }),
  });
  // An idle client that loses its server emits 'error' on the pool; without a listener
  // that would crash the process. The next query reconnects or reports the failure.
  pool.on('error', () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
