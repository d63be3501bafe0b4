import type { RedisSettings } from '@ingest/config';
import { probe } from './reachability.js';
import type { RedisClient } from './redis-connection.js';

/** The key that names the deployment owning a prefix's keys. */
export const deploymentKey = (keyPrefix: string): string => `${keyPrefix}:deployment`;

/** How often a running process claims its namespace again (holdNamespace). */
export const NAMESPACE_RECLAIM_MS = 5_000;

/**
 * Sets the key to `deploymentId` unless it is set already; answers the other deployment's
 * id when the key names one. One key, one slot: a plain SET NX, on a cluster too.
 */
async function claim(
  redis: RedisClient,
  key: string,
  deploymentId: string,
): Promise<{ set: boolean; other?: string }> {
  if ((await redis.set(key, deploymentId, 'NX')) === 'OK') return { set: true };
  const owner = await redis.get(key);
  // Gone between SET and GET (a FLUSHALL, say): whoever sets it next has it.
  if (owner === null || owner === deploymentId) return { set: false };
  return { set: false, other: owner };
}

const ownedElsewhere = (keyPrefix: string, owner: string, deploymentId: string) =>
  `the Redis key prefix "${keyPrefix}" belongs to another deployment (${owner}; this database's is ${deploymentId}): two deployments under one prefix take each other's jobs; give this one its own REDIS_KEY_PREFIX`;

/**
 * Claims the Redis namespace (REDIS_KEY_PREFIX) for a deployment: sets its key to
 * `deploymentId` unless it is set already. Two deployments with their own databases
 * under one prefix would take each other's jobs; so when the key names another
 * deployment, this rejects with a one-line message naming the prefix.
 */
export async function claimNamespace(
  target: Pick<RedisSettings, 'url' | 'cluster' | 'keyPrefix'>,
  deploymentId: string,
  timeoutMs = 3_000,
): Promise<void> {
  const redis = probe(target, timeoutMs);
  redis.on('error', () => {});
  try {
    await redis.connect();
    const { other } = await claim(redis, deploymentKey(target.keyPrefix), deploymentId);
    if (other !== undefined) throw new Error(ownedElsewhere(target.keyPrefix, other, deploymentId));
  } finally {
    redis.disconnect();
  }
}

export interface NamespaceHold {
  /**
   * Stops claiming. A claim under way is not waited for (on a connection that queues
   * commands while Redis is away, it may never answer): its answer is ignored.
   */
  stop(): void;
}

type Log = (object: object, message: string) => void;

/**
 * Keeps a running process's claim (claimNamespace made it at start): every `intervalMs`
 * the same SET NX again. A Redis restarted without persistence has lost the key, and
 * another deployment starting then would claim the prefix while this one runs; setting it
 * again narrows that window to one interval. Finding the key set again is logged; finding
 * it naming another deployment is logged as one error line, and `onLost` stops the
 * process. Claims never overlap: the next is planned once the last has answered, so a
 * Redis that hangs never piles them up; one that fails is tried again at the next.
 */
export function holdNamespace(
  redis: RedisClient,
  keyPrefix: string,
  deploymentId: string,
  log: { warn: Log; error: Log; debug: Log },
  onLost: () => void,
  intervalMs = NAMESPACE_RECLAIM_MS,
): NamespaceHold {
  const key = deploymentKey(keyPrefix);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const round = async () => {
    try {
      const { set, other } = await claim(redis, key, deploymentId);
      if (stopped) return;
      if (set) {
        log.warn(
          { keyPrefix, deploymentId },
          'the Redis key prefix was unclaimed (Redis restarted without persistence, or was flushed): claimed it again',
        );
      }
      if (other !== undefined) {
        stopped = true;
        log.error({ keyPrefix }, `stopping: ${ownedElsewhere(keyPrefix, other, deploymentId)}`);
        onLost();
      }
    } catch (error) {
      if (stopped) return;
      log.debug(
        { err: error, keyPrefix },
        'could not claim the Redis key prefix again; will retry',
      );
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void round().finally(schedule), intervalMs);
    timer.unref();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
