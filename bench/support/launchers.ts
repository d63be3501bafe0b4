// How each measured process is started: the service's API and workers as production
// runs them (the tsup bundles under node, LOG_LEVEL=info), and the floor's two
// processes from their TypeScript sources through tsx's loader.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  freePort,
  typeScriptEntry,
  type ProcessGroup,
  type RunningProcess,
} from '@ingest/test-harness';
import type { BenchKey } from './event-mix.js';
import { BENCH_DIR } from './paths.js';

export const PROFILE_DIR = join(BENCH_DIR, 'results/profiles');
/** The service's own defaults (README, "Configuration"), stated so the report can say them. */
export const POOL_SIZE = 10;
export const WORKER_CONCURRENCY = 256;
export const FLOOR_WORKER_CONCURRENCY = 32;
export const SERVICE_REDIS_PREFIX = 'bench-svc';

export interface Stores {
  databaseUrl: string;
  redisUrl: string;
  /** The Redis key prefix of the processes on these stores; SERVICE_REDIS_PREFIX unless set. */
  redisPrefix?: string;
}

const sharedEnv = (stores: Stores, redisPrefix = stores.redisPrefix ?? SERVICE_REDIS_PREFIX) => ({
  NODE_ENV: 'production',
  DATABASE_URL: stores.databaseUrl,
  DATABASE_POOL_SIZE: String(POOL_SIZE),
  REDIS_URL: stores.redisUrl,
  REDIS_KEY_PREFIX: redisPrefix,
  LOG_LEVEL: 'info',
  // Outgoing webhooks go to the bench's own receiver, on plain http at 127.0.0.1, which
  // the target policy refuses by default (the API checks endpoint URLs, workers every
  // attempt). It changes nothing for an account without endpoints.
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
});

let started = 0;
const nextName = (base: string) => `${base}-${(started += 1)}`;

export interface RunningHttp {
  proc: RunningProcess;
  baseUrl: string;
}

/** Where publishers send content events on a running API (or the floor server). */
export const contentUrl = (http: RunningHttp) => `${http.baseUrl}/api/webhooks/content`;

async function startHttp(
  group: ProcessGroup,
  base: string,
  nodeArgs: string[],
  env: Record<string, string>,
  port: number,
): Promise<RunningHttp> {
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc = await group.start({
    name: nextName(base),
    nodeArgs,
    env,
    ready: { url: `${baseUrl}/health/ready` },
    readyTimeoutMs: 30_000,
  });
  return { proc, baseUrl };
}

const profileFlags = (cpuProfile: boolean) =>
  cpuProfile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];

/**
 * The service's API; `redisPrefix` keeps a second one's queue apart from the first's.
 * `env` is added last: `shippedLimits` keeps the content rate limit at the service's
 * default rather than out of the bench's reach.
 */
export async function startApi(
  group: ProcessGroup,
  stores: Stores,
  cpuProfile: boolean,
  redisPrefix = stores.redisPrefix ?? SERVICE_REDIS_PREFIX,
  options: { env?: Record<string, string>; shippedLimits?: boolean; name?: string } = {},
) {
  const port = await freePort();
  return startHttp(
    group,
    options.name ?? 'api',
    ['--enable-source-maps', ...profileFlags(cpuProfile), 'apps/api/dist/server.js'],
    {
      ...sharedEnv(stores, redisPrefix),
      HOST: '127.0.0.1',
      PORT: String(port),
      JWT_SECRET: randomBytes(48).toString('base64'),
      API_KEY_QUOTA: '50',
      RATE_LIMIT_REGISTER_PER_IP_PER_HOUR: '1000',
      // Kept on (it is part of every request's cost) but out of reach of the bench's rates.
      ...(options.shippedLimits === true
        ? {}
        : {
            RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE: '100000000',
            RATE_LIMIT_RECEIPTS_PER_ACCOUNT_PER_MINUTE: '100000000',
          }),
      ...options.env,
    },
    port,
  );
}

/** WORKER_QUEUES: what a worker process consumes; the service's default is both. */
export type WorkerQueues = 'content,deliveries' | 'content' | 'deliveries';

/** A service worker; `env` is added last. */
export async function startServiceWorker(
  group: ProcessGroup,
  stores: Stores,
  cpuProfile: boolean,
  queues: WorkerQueues = 'content,deliveries',
  env: Record<string, string> = {},
) {
  const port = await freePort();
  return startHttp(
    group,
    queues === 'content,deliveries' ? 'worker' : `worker-${queues}`,
    ['--enable-source-maps', ...profileFlags(cpuProfile), 'apps/worker/dist/main.js'],
    {
      ...sharedEnv(stores),
      WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
      WORKER_HTTP_PORT: String(port),
      WORKER_QUEUES: queues,
      ...env,
    },
    port,
  );
}

const floorEnv = (stores: Stores, port: number) => ({
  DATABASE_URL: stores.databaseUrl,
  DATABASE_POOL_SIZE: String(POOL_SIZE),
  REDIS_URL: stores.redisUrl,
  PORT: String(port),
});

export async function startFloorServer(group: ProcessGroup, stores: Stores, keys: BenchKey[]) {
  const port = await freePort();
  const keysJson = JSON.stringify(Object.fromEntries(keys.map((k) => [k.key, k.accountId])));
  return startHttp(
    group,
    'floor-server',
    typeScriptEntry('bench/floor/server.ts'),
    { ...floorEnv(stores, port), FLOOR_KEYS: keysJson },
    port,
  );
}

export async function startFloorWorker(group: ProcessGroup, stores: Stores, cpuProfile: boolean) {
  const port = await freePort();
  return startHttp(
    group,
    'floor-worker',
    [...profileFlags(cpuProfile), ...typeScriptEntry('bench/floor/worker.ts')],
    { ...floorEnv(stores, port), WORKER_CONCURRENCY: String(FLOOR_WORKER_CONCURRENCY) },
    port,
  );
}
