import { z } from 'zod';
import { commaList, envOptionalInteger, envUrl } from './env-fields.js';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const REDIS_PROTOCOLS = ['redis:', 'rediss:'];

export interface ClusterSettings {
  /** Nodes to discover the cluster from: any of them will do, the rest are found. */
  nodes: Array<{ host: string; port: number }>;
  username?: string;
  password?: string;
  tls: boolean;
}

/** One entry of REDIS_CLUSTER_NODES: `host:port`, or a redis(s):// URL with credentials. */
function parseNode(entry: string): URL | undefined {
  const url = entry.includes('://') ? entry : `redis://${entry}`;
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const portOk = /^\d+$/.test(parsed.port) && Number(parsed.port) > 0;
  return REDIS_PROTOCOLS.includes(parsed.protocol) && parsed.hostname !== '' && portOk
    ? parsed
    : undefined;
}

/**
 * REDIS_CLUSTER_NODES: `host:port,host:port,...` (or redis:// and rediss:// URLs; the
 * first entry's credentials and TLS apply to every node). Unset: a single Redis.
 */
const clusterNodes = z
  .string()
  .trim()
  .transform(commaList)
  .refine(
    (entries) => entries.length > 0 && entries.every((entry) => parseNode(entry) !== undefined),
    'must be host:port pairs (or redis:// URLs), separated by commas',
  )
  .transform((entries): ClusterSettings => {
    const urls = entries.map((entry) => parseNode(entry)!);
    const first = urls[0]!;
    return {
      nodes: urls.map((url) => ({ host: url.hostname, port: Number(url.port) })),
      ...(first.username === '' ? {} : { username: decodeURIComponent(first.username) }),
      ...(first.password === '' ? {} : { password: decodeURIComponent(first.password) }),
      tls: first.protocol === 'rediss:',
    };
  })
  .optional();

export const RedisEnvSchema = z.object({
  REDIS_URL: envUrl(DEFAULT_REDIS_URL, REDIS_PROTOCOLS),
  /** A Redis Cluster, in place of REDIS_URL. */
  REDIS_CLUSTER_NODES: clusterNodes,
  /**
   * Queues the content events are spread over, by account. Each is one hash slot, so on a
   * cluster they are what spreads the queue's load over the masters. Default: 1 on a
   * single Redis (the queue `content-events`), 6 on a cluster.
   */
  REDIS_QUEUE_SHARDS: envOptionalInteger({ min: 1, max: 64 }),
  /** Prefix of every Redis key this deployment writes; lets environments share a server. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 : _ -')
    .default('ingest'),
});

/** Shards of the content queue on a cluster, unless REDIS_QUEUE_SHARDS says otherwise. */
export const CLUSTER_QUEUE_SHARDS = 6;

export function redisSettings(env: z.output<typeof RedisEnvSchema>) {
  const cluster = env.REDIS_CLUSTER_NODES ?? null;
  return {
    url: env.REDIS_URL,
    cluster,
    keyPrefix: env.REDIS_KEY_PREFIX,
    queueShards: env.REDIS_QUEUE_SHARDS ?? (cluster === null ? 1 : CLUSTER_QUEUE_SHARDS),
  };
}

export type RedisSettings = ReturnType<typeof redisSettings>;
