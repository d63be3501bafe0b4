import { eraseAccountFromArchives } from '@ingest/event-archive';
import { addCounts } from './erasure-counts.js';
import { eraseDeliveryJobs } from './delivery-jobs.js';
import type { ErasureDeps } from './erasure-round.js';
import { eraseRedisTraces } from './redis-traces.js';

/**
 * Removes what Redis and the archives hold of the account once its rows are gone, and adds
 * what went to the erasure's record. False when a worker held one of the jobs to remove: a
 * job is active only while a worker runs it (a stalled one goes back to waiting), so the
 * erasure stays unfinished and the next round sweeps again, until none is held.
 */
export async function sweep(
  deps: ErasureDeps,
  erasureId: string,
  accountId: string,
): Promise<boolean> {
  const traces = await eraseRedisTraces(deps.redis, deps.keyPrefix, deps.queues, accountId);
  const deliveries = await eraseDeliveryJobs(deps.pool, deps.deliveryQueue);
  const archives =
    deps.archiveDir === null ? {} : await eraseAccountFromArchives(deps.archiveDir, accountId);
  if (Object.keys(archives).length > 0) {
    await deps.pool.query(
      'UPDATE account_erasures SET archives = archives || $2::jsonb WHERE id = $1',
      [erasureId, JSON.stringify(archives)],
    );
  }
  await addCounts(deps.pool, erasureId, {
    redis_keys: traces.keys,
    redis_members: traces.members,
    redis_jobs: traces.jobs + deliveries.jobs,
  });
  return traces.skipped + deliveries.skipped === 0;
}
