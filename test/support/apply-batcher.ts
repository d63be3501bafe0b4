// The worker's shared transaction, driven directly from a test: events claimed and handed
// to the apply batcher by the test, with no worker process, so that which events are heads
// and which follow them in a run is the test's choice, not a race's.
import { createCategoryCache } from '@ingest/events';
import { loadWorkerConfig } from '@ingest/config';
import { claimEvents, type Claim } from '@ingest/event-log';
import { createLogger } from '@ingest/logger';
import { createContentShards, createDeliveryQueue } from '@ingest/queue';
import { createApplyBatcher } from '@ingest/worker/content/apply-batcher';
import { createWaker } from '@ingest/worker/content/order-wake';
import { routeEvent } from '@ingest/worker/content/route-event';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import type { TestApi } from './test-api.js';
import { testEnv } from './test-env.js';

export const claimed = (claim: Claim | undefined) => {
  if (claim?.outcome !== 'claimed') throw new Error(`not claimed: ${claim?.outcome}`);
  return claim;
};

/** What the apply batcher needs of a worker, on the test API's database and Redis. */
export function batcherDeps(api: TestApi) {
  const config = loadWorkerConfig(testEnv(api.tag));
  const logger = createLogger({ level: 'silent', name: 'worker' });
  return {
    db: api.deps.db,
    config,
    logger,
    queues: createContentShards(api.deps.redis, config.redis),
    deliveryQueue: createDeliveryQueue(api.deps.redis, config.redis),
    categoryCache: createCategoryCache(),
  };
}

/**
 * An apply batcher, and a function that claims events together (before any is applied,
 * so that they go in one batch) and applies each as a head: with the queued events behind
 * it in its line as its run.
 */
export function startApplyBatcher(api: TestApi) {
  const deps = batcherDeps(api);
  const batcher = createApplyBatcher(deps, createWaker(deps));
  const applyAsHeads = async (eventIds: string[]) => {
    const claims = await claimEvents(api.deps.db.pool, eventIds);
    return Promise.all(
      eventIds.map((id) => {
        const { row, attempt } = claimed(claims.get(id));
        const routed = routeEvent(row, deps.config.content);
        return batcher.apply({ row, attempt, routed, trace: ROOT_CONTEXT });
      }),
    );
  };
  return { deps, batcher, applyAsHeads };
}
