// The worker's shared transaction, driven directly: two runs of one event (a stalled job
// taken again while its first run is still going) claimed in separate statements and
// handed to the apply batcher in the same moment, so that they meet in one batch. The
// event is applied once, by the first, and the second is told it changed nothing.
import { loadWorkerConfig } from '@ingest/config';
import { createEventSchemas } from '@ingest/contracts';
import { claimEvents, recordDuplicate, type Claim } from '@ingest/event-log';
import { createLogger } from '@ingest/logger';
import { createContentQueue, createDeliveryQueue } from '@ingest/queue';
import { createApplyBatcher } from '@ingest/worker/apply-batcher';
import { createWaker } from '@ingest/worker/order-wake';
import { createCategoryCache, routeEvent } from '@ingest/worker/processors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { accept, articleData, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { testEnv } from './support/test-env.js';

let api: TestApi;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await createKey(api, await registerAccount(api)));
});
afterAll(async () => {
  await api?.close();
});

const claimed = (claim: Claim | undefined) => {
  if (claim?.outcome !== 'claimed') throw new Error(`not claimed: ${claim?.outcome}`);
  return claim;
};

describe('the apply batcher', () => {
  it('applies an event once when two of its runs meet in one batch, and keeps the first', async () => {
    const config = loadWorkerConfig(testEnv(api.tag));
    const logger = createLogger({ level: 'silent', name: 'worker' });
    const deps = {
      db: api.deps.db,
      config,
      schemas: createEventSchemas(config.content),
      logger,
      queue: createContentQueue(api.deps.redis, config.redis.keyPrefix),
      deliveryQueue: createDeliveryQueue(api.deps.redis, config.redis.keyPrefix),
      categoryCache: createCategoryCache(),
    };
    const batcher = createApplyBatcher(deps, createWaker(deps));
    const slug = uniqueSlug('twice');
    const eventId = await accept(api, key, 'article.create', articleData({ slug }));

    const runs = [];
    for (let run = 0; run < 2; run += 1) {
      const { row, attempt } = claimed(
        (await claimEvents(api.deps.db.pool, [eventId])).get(eventId),
      );
      runs.push({
        row,
        attempt,
        log: logger,
        routed: routeEvent(deps.schemas, row, config.content, logger),
      });
    }
    expect(runs.map((run) => run.attempt)).toEqual([1, 2]);

    const [first, second] = await Promise.all(runs.map((run) => batcher.apply(run)));
    expect(first?.result).toMatchObject({ type: 'article', slug });
    expect(second).toBeUndefined();
    await recordDuplicate(api.deps.db.pool, eventId, 2); // what the second run's job does

    const attempts = await api.deps.db.prisma.eventAttempt.findMany({
      where: { eventId },
      orderBy: { number: 'asc' },
    });
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['succeeded', 'duplicate']);
    expect(await api.deps.db.prisma.article.count({ where: { slug } })).toBe(1);
  });
});
