import { once } from 'node:events';
import type { RedisSettings } from '@ingest/config';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** A single Redis or a Redis Cluster: BullMQ, the rate limits and our scripts take either. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: a single server, or a cluster (which then takes REDIS_URL's place). */
export type RedisTarget = Pick<RedisSettings, 'url' | 'cluster'>;

/**
 * What a connection is for decides how it behaves when Redis goes away:
 * - `producer` (the API enqueueing, rate limiting): fail fast, so a request gets an
 *   answer instead of hanging in ioredis's offline queue;
 * - `worker` (BullMQ workers and their blocking reads): retry forever, as BullMQ
 *   requires (`maxRetriesPerRequest: null`), so workers resume by themselves.
 */
export type RedisRole = 'producer' | 'worker';

const ROLE_OPTIONS: Record<RedisRole, RedisOptions> = {
  producer: { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 },
  worker: { enableOfflineQueue: true, maxRetriesPerRequest: null, connectTimeout: 5_000 },
};

/** Reconnect with capped back-off; never give up, a Redis restart must not need ours. */
const retryStrategy = (attempt: number): number => Math.min(50 * 2 ** attempt, 2_000);

/** The credentials and TLS every node of a cluster is reached with. */
const credentialsOf = (cluster: NonNullable<RedisTarget['cluster']>): RedisOptions => ({
  ...(cluster.username === undefined ? {} : { username: cluster.username }),
  ...(cluster.password === undefined ? {} : { password: cluster.password }),
  ...(cluster.tls ? { tls: {} } : {}),
});

/**
 * A client of a single Redis or of a cluster, from one set of options. On a cluster the
 * offline queue and auto-pipelining are the cluster client's, with `clusterOptions`; the
 * other options, and the cluster's credentials, go to each node's connection.
 */
export function openRedis(
  target: RedisTarget | string,
  options: RedisOptions,
  clusterOptions: ClusterOptions = {},
): RedisClient {
  if (typeof target === 'string') return new Redis(target, options);
  const { cluster } = target;
  if (cluster === null) return new Redis(target.url, options);
  const { enableOfflineQueue, enableAutoPipelining, ...perNode } = options;
  return new Cluster(cluster.nodes, {
    enableOfflineQueue,
    enableAutoPipelining,
    ...clusterOptions,
    redisOptions: { ...perNode, ...credentialsOf(cluster) },
  });
}

const CLUSTER_OPTIONS: ClusterOptions = {
  clusterRetryStrategy: retryStrategy,
  // A master that died is replaced by its replica within the cluster's node timeout;
  // commands sent meanwhile wait for the new slot map rather than fail at once.
  retryDelayOnClusterDown: 200,
  retryDelayOnFailover: 200,
};

/** A connection to a single Redis by its URL (tools and tests), or to where Redis is. */
export function createRedisConnection(
  target: string,
  role: RedisRole,
  connectionName: string,
  options?: RedisOptions,
): Redis;
export function createRedisConnection(
  target: RedisTarget,
  role: RedisRole,
  connectionName: string,
  options?: RedisOptions,
): RedisClient;
export function createRedisConnection(
  target: RedisTarget | string,
  role: RedisRole,
  connectionName: string,
  options: RedisOptions = {},
): RedisClient {
  const redis = openRedis(
    target,
    { ...ROLE_OPTIONS[role], ...options, connectionName, retryStrategy, lazyConnect: false },
    CLUSTER_OPTIONS,
  );
  // Connection errors are reported by the commands that fail; an unhandled 'error'
  // event would instead crash the process while ioredis is reconnecting.
  redis.on('error', () => {});
  return redis;
}

/**
 * A connection that has finished connecting. A producer connection refuses commands
 * until then (it has no offline queue), so a process must wait for this before serving.
 */
export async function connectRedis(
  target: string,
  role: RedisRole,
  connectionName: string,
  options?: RedisOptions,
): Promise<Redis>;
export async function connectRedis(
  target: RedisTarget,
  role: RedisRole,
  connectionName: string,
  options?: RedisOptions,
): Promise<RedisClient>;
export async function connectRedis(
  target: RedisTarget | string,
  role: RedisRole,
  connectionName: string,
  options: RedisOptions = {},
): Promise<RedisClient> {
  const redis =
    typeof target === 'string'
      ? createRedisConnection(target, role, connectionName, options)
      : createRedisConnection(target, role, connectionName, options);
  if (redis.status !== 'ready') await once(redis, 'ready');
  return redis;
}
