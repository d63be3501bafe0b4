import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';
import { sendStatementsUnnamed } from './unnamed-statements.js';

export interface DatabaseOptions {
  url: string;
  /**
   * PostgreSQL itself when `url` is a pooler in transaction mode (PgBouncer); undefined
   * or equal to `url` when nothing is in between.
   */
  directUrl?: string;
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
  /**
   * Connections that are sessions of their own, for what a transaction-mode pooler would
   * break: session advisory locks, session settings, DDL outside a transaction. The
   * same pool as `pool` when no pooler is in between; a small one of its own otherwise.
   */
  direct: pg.Pool;
  /** Whether `pool` goes through a pooler (DATABASE_DIRECT_URL differs from DATABASE_URL). */
  throughPooler: boolean;
  close(): Promise<void>;
}

/** Session work is rare and short: partition upkeep, one process at a time. */
const DIRECT_POOL_SIZE = 2;

/**
 * Settings every session needs, sent as startup parameters where PostgreSQL is reached
 * directly. PgBouncer refuses startup parameters, so through a pooler the database's
 * defaults apply: the migrations set `jit = off` there, and the statement timeout is the
 * operator's to set (docs/operations.md).
 *
 * Custom plans: a generic plan of a statement on the partitioned event log locks every
 * partition and each of its indexes at every execution (PostgreSQL 15); a custom plan
 * prunes them when it is planned. JIT off: no statement here runs long enough to gain
 * from it, and a large row estimate alone can make PostgreSQL compile a statement for far
 * longer than it runs.
 */
function sessionSettings(options: DatabaseOptions) {
  return {
    options: '-c plan_cache_mode=force_custom_plan -c jit=off',
    ...(options.statementTimeoutMs === undefined
      ? {}
      : { statement_timeout: options.statementTimeoutMs }),
  };
}

function createPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  // An idle client that loses its server emits 'error' on the pool; without a listener
  // that would crash the process. The next query reconnects or reports the failure.
  pool.on('error', () => {});
  return pool;
}

/**
 * A Prisma client on the Rust-free runtime: queries are compiled in WebAssembly and run
 * through node-postgres, so no native engine is needed anywhere.
 */
export function createDatabase(options: DatabaseOptions): Database {
  const throughPooler = options.directUrl !== undefined && options.directUrl !== options.url;
  const connectionTimeoutMillis = options.connectionTimeoutMs ?? 5_000;
  const pool = createPool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis,
    ...(throughPooler ? {} : sessionSettings(options)),
  });
  // A transaction-mode pooler hands each transaction whichever server connection is
  // free: a statement prepared by name on one is unknown to the next (PgBouncer before
  // 1.21 does not track them), so statements go unnamed.
  if (throughPooler) pool.on('connect', sendStatementsUnnamed);
  const direct = throughPooler
    ? createPool({
        connectionString: options.directUrl,
        max: DIRECT_POOL_SIZE,
        connectionTimeoutMillis,
        ...sessionSettings(options),
      })
    : pool;
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    direct,
    throughPooler,
    async close() {
      await prisma.$disconnect();
      await pool.end();
      if (direct !== pool) await direct.end();
    },
  };
}
