// The system under test, all of it private to this run: a PostgreSQL cluster and a
// redis-server on free ports (the machine's shared servers are never touched), one API
// process and several worker processes, real `node --import tsx` processes that can be
// killed, stopped and started again. Or the topology: a Redis Cluster (3 masters with a
// replica each), PgBouncer in front of PostgreSQL, a streaming read replica, two APIs.
import { randomBytes } from 'node:crypto';
import {
  freePort,
  ProcessGroup,
  startPrivateRedis,
  startPrivateRedisCluster,
  typeScriptEntry,
  type PrivateRedis,
  type PrivateRedisCluster,
  type RunningProcess,
} from '@ingest/test-harness';
import { startPgBouncer, type PrivatePgBouncer } from '@ingest/test-harness/pgbouncer';
import {
  startPrivatePostgres,
  startPrivateReplica,
  type PrivatePostgres,
} from '@ingest/test-harness/private-postgres';
import pg from 'pg';
import { WEBHOOK_ENV } from './webhook-receivers.js';

const API = {
  nodeArgs: typeScriptEntry('apps/api/src/server.ts'),
  ready: { line: /Server listening/ },
};
const WORKER = {
  nodeArgs: typeScriptEntry('apps/worker/src/main.ts'),
  ready: { line: /"msg":"worker ready"/ },
};

export interface Cluster {
  /** The first API's address: set-up, receipts and checks go there. */
  baseUrl: string;
  /** Every API's address (two on the topology); the bots spread their calls over them. */
  baseUrls: string[];
  postgres: PrivatePostgres;
  /** On the topology: PgBouncer in transaction mode, between every process and PostgreSQL. */
  pooler?: PrivatePgBouncer;
  /** On the topology: the streaming replica the APIs read from (DATABASE_READ_URL). */
  replica?: PrivatePostgres;
  /** A single Redis; on the topology, `redisCluster` instead. */
  redis?: PrivateRedis;
  redisCluster?: PrivateRedisCluster;
  /** A pool on the private database for the ledger checks; it survives restarts. */
  db: pg.Pool;
  workerCount: number;
  /** Stops an API (the first unless `index` says) with `signal`, and starts a new one on its port. */
  restartApi(signal: NodeJS.Signals, index?: number): Promise<void>;
  /** Stops an API, leaving its port refusing connections until startApi. */
  stopApi(index: number, signal: NodeJS.Signals): Promise<void>;
  startApi(index: number): Promise<void>;
  stopWorker(index: number, signal: NodeJS.Signals): Promise<void>;
  /** SIGSTOP a worker for `ms`, then SIGCONT: a process that hangs, then wakes up. */
  freezeWorker(index: number, ms: number): Promise<void>;
  startWorker(index: number): Promise<void>;
  /** Starts again any process that is not running (after a failed scenario); names them. */
  heal(): Promise<string[]>;
  /** Processes that exited without being asked to, with their last lines. */
  unexpectedExits: string[];
  /** Every process started so far, with everything it logged. */
  logs(): Array<{ name: string; lines: string[] }>;
  /** Log lines, over every process started so far, that match `pattern`. */
  linesMatching(pattern: RegExp): string[];
  destroy(): Promise<void>;
}

export async function startCluster(options: {
  workers: number;
  log: (line: string) => void;
  /**
   * The topology: a Redis Cluster; API and workers through PgBouncer (DATABASE_URL;
   * LISTEN and upkeep direct); a read replica; two APIs instead of one.
   */
  topology?: boolean;
}) {
  const topology = options.topology === true;
  // On a loaded machine a start can miss its 20 s deadline: it is tried once more.
  const processes = new ProcessGroup({ log: options.log, startAttempts: 2 });
  let postgres: PrivatePostgres | undefined;
  let redis: PrivateRedis | undefined;
  let redisCluster: PrivateRedisCluster | undefined;
  let pooler: PrivatePgBouncer | undefined;
  let replica: PrivatePostgres | undefined;
  let db: pg.Pool | undefined;

  const destroy = async () => {
    await processes.stopAll('SIGKILL');
    await db?.end().catch(() => {});
    await redis?.stop().catch(() => {});
    await redisCluster?.destroy().catch(() => {});
    await pooler?.destroy().catch(() => {});
    await replica?.destroy().catch(() => {});
    await postgres?.destroy().catch(() => {});
  };

  try {
    [postgres, redis] = await Promise.all([
      startPrivatePostgres(),
      topology ? undefined : startPrivateRedis(),
    ]);
    if (topology) {
      [redisCluster, pooler, replica] = await Promise.all([
        startPrivateRedisCluster({ masters: 3 }),
        startPgBouncer(postgres.url),
        startPrivateReplica(postgres),
      ]);
    }
    const ports = await Promise.all(Array.from({ length: topology ? 2 : 1 }, () => freePort()));
    const shared = {
      DATABASE_URL: pooler?.urlFor(postgres.url) ?? postgres.url,
      DATABASE_DIRECT_URL: postgres.url,
      DATABASE_POOL_SIZE: '10',
      ...(redisCluster === undefined
        ? { REDIS_URL: redis!.url }
        : { REDIS_CLUSTER_NODES: redisCluster.nodes.join(',') }),
      REDIS_KEY_PREFIX: 'faults',
      LOG_LEVEL: 'info',
      JOB_BACKOFF_MS: '200',
      // The API checks an endpoint's URL when it is registered, the workers on each attempt.
      ...WEBHOOK_ENV,
    };
    const apiEnv = {
      ...shared,
      ...(replica === undefined ? {} : { DATABASE_READ_URL: replica.url }),
      // The same secret in every API: a token from one is good at the other.
      JWT_SECRET: randomBytes(48).toString('base64'),
      RATE_LIMIT_REGISTER_PER_IP_PER_HOUR: '100000',
      RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '100000',
      RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE: '100000',
      RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE: '10000000',
      RATE_LIMIT_RECEIPTS_PER_ACCOUNT_PER_MINUTE: '10000000',
      // Admission control keeps its default: the bots retry what it refuses, as they
      // retry any 429 or 503, and the checks hold the API to losing none of it.
    };
    const workerEnv = {
      ...shared,
      WORKER_CONCURRENCY: '8',
      // Short, so that a killed worker's jobs come back within seconds, not 30.
      WORKER_LOCK_DURATION_MS: '3000',
      RECONCILE_INTERVAL_MS: '500',
      RECONCILE_AFTER_MS: '1500',
      DATABASE_OUTAGE_PAUSE_MS: '500',
      WORKER_SHUTDOWN_GRACE_MS: '5000',
      // Past the APIs' key cache (1 s) and their requests: an erasure finishes within seconds.
      ERASURE_SETTLE_MS: '5000',
      // Workers serve health and metrics over HTTP: any free port, so two can run here.
      WORKER_HTTP_PORT: '0',
    };

    const startApi = (name: string, index: number) =>
      processes.start({ name, ...API, env: { ...apiEnv, PORT: String(ports[index]) } });
    const startWorker = (name: string) => processes.start({ name, ...WORKER, env: workerEnv });
    const apis: Array<RunningProcess | undefined> = await Promise.all(
      ports.map((_, i) => startApi(i === 0 ? 'api#1' : `api-${i + 1}#1`, i)),
    );
    const apiName = (index: number) => (index === 0 ? 'api' : `api-${index + 1}`);
    const workers: Array<RunningProcess | undefined> = await Promise.all(
      Array.from({ length: options.workers }, (_, i) => startWorker(`worker-${i + 1}#1`)),
    );
    const generations = new Map<string, number>();
    const nextName = (base: string) => {
      const n = (generations.get(base) ?? 1) + 1;
      generations.set(base, n);
      return `${base}#${n}`;
    };
    db = new pg.Pool({ connectionString: postgres.url, max: 4 });
    // An idle client losing its server (the PostgreSQL scenario) must not crash the run.
    db.on('error', () => {});

    const cluster: Cluster = {
      baseUrl: `http://127.0.0.1:${ports[0]}`,
      baseUrls: ports.map((port) => `http://127.0.0.1:${port}`),
      postgres,
      ...(pooler === undefined ? {} : { pooler }),
      ...(replica === undefined ? {} : { replica }),
      ...(redis === undefined ? {} : { redis }),
      ...(redisCluster === undefined ? {} : { redisCluster }),
      db,
      workerCount: options.workers,
      unexpectedExits: processes.crashes,
      async restartApi(signal, index = 0) {
        await cluster.stopApi(index, signal);
        await cluster.startApi(index);
      },
      async stopApi(index, signal) {
        await apis[index]?.stop(signal);
        apis[index] = undefined;
      },
      async startApi(index) {
        if (apis[index] !== undefined) throw new Error(`API ${index + 1} is running`);
        apis[index] = await startApi(nextName(apiName(index)), index);
      },
      async stopWorker(index, signal) {
        await workers[index]?.stop(signal);
        workers[index] = undefined;
      },
      async startWorker(index) {
        if (workers[index] !== undefined) throw new Error(`worker ${index + 1} is running`);
        workers[index] = await startWorker(nextName(`worker-${index + 1}`));
      },
      async heal() {
        const healed: string[] = [];
        const dead = (proc: RunningProcess | undefined) => proc === undefined || proc.hasExited();
        for (let index = 0; index < apis.length; index += 1) {
          if (!dead(apis[index])) continue;
          healed.push(apiName(index));
          await cluster.stopApi(index, 'SIGKILL');
          await cluster.startApi(index);
        }
        for (let index = 0; index < workers.length; index += 1) {
          if (!dead(workers[index])) continue;
          healed.push(`worker-${index + 1}`);
          await cluster.stopWorker(index, 'SIGKILL');
          await cluster.startWorker(index);
        }
        return healed;
      },
      async freezeWorker(index, ms) {
        const worker = workers[index];
        if (worker === undefined) throw new Error(`worker ${index + 1} is not running`);
        await worker.freeze(ms);
      },
      logs: () => processes.logs(),
      linesMatching: (pattern) => processes.linesMatching(pattern),
      destroy,
    };
    return cluster;
  } catch (error) {
    await destroy();
    throw error;
  }
}
