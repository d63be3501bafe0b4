import type { RedisSettings } from '@ingest/config';
import { probe } from './reachability.js';

/** The key that names the deployment owning a prefix's keys. */
export const deploymentKey = (keyPrefix: string): string => `${keyPrefix}:deployment`;

/**
 * Claims the Redis namespace (REDIS_KEY_PREFIX) for a deployment: sets its key to
 * `deploymentId` unless it is set already. Two deployments with their own databases
 * under one prefix would take each other's jobs; so when the key names another
 * deployment, this rejects with a one-line message naming the prefix. One key, one slot:
 * a plain SET NX, on a cluster too.
 */
export async function claimNamespace(
  target: Pick<RedisSettings, 'url' | 'cluster' | 'keyPrefix'>,
  deploymentId: string,
  timeoutMs = 3_000,
): Promise<void> {
  const redis = probe(target, timeoutMs);
  redis.on('error', () => {});
  const key = deploymentKey(target.keyPrefix);
  try {
    await redis.connect();
    if ((await redis.set(key, deploymentId, 'NX')) === 'OK') return;
    const owner = await redis.get(key);
    // Gone between SET and GET (a FLUSHALL, say): whoever sets it next has it.
    if (owner === null || owner === deploymentId) return;
    throw new Error(
      `the Redis key prefix "${target.keyPrefix}" belongs to another deployment (${owner}; this database's is ${deploymentId}): two deployments under one prefix take each other's jobs; give this one its own REDIS_KEY_PREFIX`,
    );
  } finally {
    redis.disconnect();
  }
}
