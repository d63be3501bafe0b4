import { readBacklog } from '@ingest/event-log';
import { recordGauges, type RedisClient } from '@ingest/queue';
import type { WorkerDeps } from './deps.js';
import { repeatEvery, type Repeating } from './repeat.js';

const SAMPLE_INTERVAL_MS = 1_000;
/** The sampling's share of one PostgreSQL core at most: a slower read spaces samples out. */
const MAX_DATABASE_SHARE = 0.05;

/**
 * Once a second, one worker of the deployment (whichever takes the turn in Redis first)
 * reads the backlog, in all and per account, and keeps its depth and oldest waiting age in
 * the operators' history (recordGauges). Every second, so that a backlog that drains in
 * two seconds still shows on the history's minute; less often when the read grows costly
 * (a backlog of tens of thousands), so that watching a backlog never slows its draining.
 */
export function startBacklogSampler(deps: WorkerDeps, redis: RedisClient): Repeating {
  const turnKey = `${deps.config.redis.keyPrefix}:history:sampler`;

  const sample = async () => {
    const turn = await redis.set(turnKey, '1', 'PX', SAMPLE_INTERVAL_MS - 100, 'NX');
    if (turn !== 'OK') return;
    const started = performance.now();
    const { accounts } = await readBacklog(deps.db.pool);
    const spacing = (performance.now() - started) / MAX_DATABASE_SHARE;
    if (spacing > SAMPLE_INTERVAL_MS) await redis.pexpire(turnKey, Math.round(spacing) - 100);
    const now = Date.now();
    const waitedSeconds = (at: Date | null) =>
      at === null ? 0 : Math.max(0, (now - at.getTime()) / 1000);
    const byAccount = accounts.map((account) => ({
      accountId: account.accountId,
      depth: account.queued + account.processing,
      oldestWaitingSeconds: waitedSeconds(account.oldestQueuedAt),
    }));
    await recordGauges(redis, deps.config.redis.keyPrefix, {
      total: {
        depth: byAccount.reduce((sum, account) => sum + account.depth, 0),
        oldestWaitingSeconds: Math.max(0, ...byAccount.map((a) => a.oldestWaitingSeconds)),
      },
      byAccount,
    });
  };
  // A missed sample (the database or Redis away) leaves a lower peak for the minute.
  return repeatEvery(SAMPLE_INTERVAL_MS, sample);
}
