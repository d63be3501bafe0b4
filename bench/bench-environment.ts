// Everything the phases measure against, set up once per run: a fresh build, the bench
// database, a private Redis, the service's API, the floor server, and publisher keys.
// Each step registers its undo with the run's Cleanup as soon as it has succeeded.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createPublisher,
  fetchClient,
  newAccountFields,
  ProcessGroup,
  REPO_ROOT,
  startPrivateRedis,
  type PrivateRedis,
} from '@ingest/test-harness';
import { Queue } from 'bullmq';
import type pg from 'pg';
import type { BenchOptions } from './bench-options.js';
import { FLOOR_PREFIX, FLOOR_QUEUE } from './floor/floor-schema.js';
import {
  BENCH_DATABASE_URL,
  backendPids,
  createBenchDatabase,
  dropBenchDatabase,
  truncateEventTables,
} from './support/bench-database.js';
import type { Cleanup } from './support/cleanup.js';
import { createCpuCeiling, postgresPids } from './support/cpu-ceiling.js';
import type { BenchKey } from './support/event-mix.js';
import {
  SERVICE_REDIS_PREFIX,
  startApi,
  startFloorServer,
  type RunningHttp,
  type Stores,
} from './support/launchers.js';
import { LOG_DIR } from './support/paths.js';
import { startCpuMeter, type CpuUse, type MeteredProcess } from './support/cpu-meter.js';

const run = promisify(execFile);

export const ACCOUNTS = 4;
export const KEYS_PER_ACCOUNT = 10;

/** What a phase needs to act as an account's owner (its webhook endpoints). */
export interface BenchAccount {
  id: string;
  token: string;
}

export interface BenchEnvironment {
  options: BenchOptions;
  processes: ProcessGroup;
  stores: Stores;
  db: pg.Pool;
  redis: PrivateRedis;
  api: RunningHttp;
  floor: RunningHttp;
  keys: BenchKey[];
  /** The publisher accounts the keys belong to, with a bearer token each (valid an hour). */
  accounts: BenchAccount[];
  /** Observations worth printing under the table. */
  notes: string[];
  log(line: string): void;
  /** Empties the queues and the event tables; call only while no worker runs. */
  reset(): Promise<void>;
  /** A slug prefix no earlier stream of this run used. */
  tag(base: string): string;
  /** CPU use of these processes, the runner, Redis and the bench database's backends. */
  cpuMeter(processes: MeteredProcess[]): ReturnType<typeof startCpuMeter>;
  /** Every CpuUse measured so far, to say how busy the machine was with other work. */
  cpuHistory: CpuUse[];
}

const REGISTRATIONS_AT_ONCE = 8;

/**
 * Publisher accounts and their keys, made over HTTP as a publisher would (README,
 * "Accounts"), before anything is measured: `accounts` accounts with `keysEach` keys each.
 */
export async function createBenchKeys(
  baseUrl: string,
  accounts: number,
  keysEach: number,
): Promise<{ keys: BenchKey[]; accounts: BenchAccount[] }> {
  const client = fetchClient(baseUrl);
  const publishers: Array<Awaited<ReturnType<typeof createPublisher>>> = [];
  // A few at a time: registrations all at once would meet the API's admission control.
  for (let from = 0; from < accounts; from += REGISTRATIONS_AT_ONCE) {
    const batch = Array.from({ length: Math.min(REGISTRATIONS_AT_ONCE, accounts - from) }, (_, i) =>
      createPublisher(client, newAccountFields('bench.example', `bench_${from + i}`), keysEach),
    );
    publishers.push(...(await Promise.all(batch)));
  }
  const perAccount = publishers.map(({ id, apiKeys }) =>
    apiKeys.map((key): BenchKey => ({ key, accountId: id })),
  );
  // Keys interleaved by account: a round robin over keys then visits every account in turn.
  const keys = Array.from({ length: keysEach }, (_, k) =>
    perAccount.flatMap((keys) => keys[k] ?? []),
  ).flat();
  return { keys, accounts: publishers.map(({ id, token }) => ({ id, token })) };
}

async function build(log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const logPath = join(LOG_DIR, 'build.log');
  try {
    const { stdout, stderr } = await run('pnpm', ['build'], { cwd: REPO_ROOT, timeout: 180_000 });
    writeFileSync(logPath, stdout + stderr);
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    writeFileSync(logPath, stdout + stderr);
    throw new Error(`pnpm build failed; see ${logPath}`);
  }
  log(
    `built the apps and packages/client in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

export async function setUpEnvironment(
  options: BenchOptions,
  cleanup: Cleanup,
  log: (line: string) => void,
): Promise<BenchEnvironment> {
  mkdirSync(LOG_DIR, { recursive: true });
  await build(log);

  // Registered first, so undone last: the engines leave the ceiling once nothing uses them.
  const ceiling = createCpuCeiling(options.cpuCeiling);
  cleanup.add('cpu ceiling', async () => ceiling.remove());

  const db = await createBenchDatabase();
  // Reading the data directory takes a superuser (or pg_read_all_settings) and a local server.
  const postgres = await db
    .query<{ setting: string }>(`SELECT setting FROM pg_settings WHERE name = 'data_directory'`)
    .then(({ rows }) => postgresPids(rows[0]!.setting))
    .catch((error: unknown) => {
      log(`cpu ceiling: PostgreSQL stays outside it (${(error as Error).message})`);
      return [];
    });
  for (const pid of postgres) ceiling.place(pid);
  cleanup.add('bench database', async () => {
    await db.end();
    await dropBenchDatabase();
  });
  const redis = await startPrivateRedis({ logFile: join(LOG_DIR, 'redis.log') });
  cleanup.add('private redis', () => redis.stop());
  ceiling.place(redis.pid);
  const stores: Stores = { databaseUrl: BENCH_DATABASE_URL, redisUrl: redis.url };
  log(`database ${new URL(BENCH_DATABASE_URL).pathname.slice(1)} migrated; redis at ${redis.url}`);

  // Registered after the stores, so undone before them: no process sees its Redis vanish.
  const processes = new ProcessGroup({ logDir: LOG_DIR, onSpawn: (pid) => ceiling.place(pid) });
  cleanup.add('processes', () => processes.stopAll());

  const api = await startApi(processes, stores, options.cpuProfile);
  const { keys, accounts } = await createBenchKeys(api.baseUrl, ACCOUNTS, KEYS_PER_ACCOUNT);
  const floor = await startFloorServer(processes, stores, keys);
  log(`api and floor server ready; ${keys.length} keys over ${ACCOUNTS} accounts`);

  // The service's queue names and key layout: packages/queue (CONTENT_EVENTS_QUEUE,
  // DELIVERIES_QUEUE, bullPrefix), which the bench does not import so as to depend on no
  // app package.
  const connection = { host: '127.0.0.1', port: redis.port };
  const servicePrefix = `${SERVICE_REDIS_PREFIX}:bull`;
  const queues = [
    new Queue('content-events', { connection, prefix: servicePrefix }),
    new Queue('webhook-deliveries', { connection, prefix: servicePrefix }),
    new Queue(FLOOR_QUEUE, { connection, prefix: FLOOR_PREFIX }),
  ];
  cleanup.add('queue handles', () => Promise.all(queues.map((queue) => queue.close())));

  let tags = 0;
  const cpuHistory: CpuUse[] = [];
  return {
    options,
    processes,
    stores,
    db,
    redis,
    api,
    floor,
    keys,
    accounts,
    notes: [`CPU ceiling: ${ceiling.description}.`],
    log,
    async reset() {
      await Promise.all(queues.map((queue) => queue.obliterate({ force: true })));
      await truncateEventTables(db);
    },
    tag: (base) => `${base}-${(tags += 1)}`,
    cpuHistory,
    cpuMeter: cpuMeterOf(db, redis, cpuHistory),
  };
}

/**
 * BenchEnvironment.cpuMeter for the backends of `db`'s database: each measurement also
 * goes into `history`.
 */
export function cpuMeterOf(
  db: pg.Pool,
  redis: PrivateRedis,
  history: CpuUse[],
): BenchEnvironment['cpuMeter'] {
  return async (measured) => {
    const meter = await startCpuMeter(
      [...measured, { name: 'runner', pid: process.pid }, { name: 'redis', pid: redis.pid }],
      { name: 'postgres', pids: () => backendPids(db) },
    );
    return {
      async stop() {
        const use = await meter.stop();
        history.push(use);
        return use;
      },
    };
  };
}
