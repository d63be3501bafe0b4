// POST /api/webhooks/content with article events, over generated hostile and valid
// inputs: the answer is always the documented one, and a refused event never reaches
// the queue: no job, and its record is `rejected`, a final status that no worker's
// reconciler ever queues, so it can never reach the content tables either. (That it
// does not is checked with a worker running, in content-round-trip.test.ts.) No worker
// runs here: accepted events stay queued, though other files' workers may apply them
// (their reconcilers queue every recorded event; see category-marks.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { deleteMarkedCategories } from './support/category-marks.js';
import {
  checkContentBatch,
  contentContext,
  expectRefusalsRecorded,
  prepared,
  type ContentContext,
} from './support/content-property.js';
import { eventRequest } from './support/envelope-arbitraries.js';
import {
  batchedRuns,
  batchesOf,
  PROPERTY_API_ENV,
  PROPERTY_RUNS,
  timeoutFor,
} from './support/property-runs.js';

let api: TestApi;
let context: ContentContext;
beforeAll(async () => {
  api = await startTestApi(PROPERTY_API_ENV);
  context = await contentContext(api);
});
afterAll(async () => {
  if (context !== undefined) await deleteMarkedCategories(api, context.mark);
  await api?.close();
});

describe('POST /api/webhooks/content, article events', () => {
  it.each(['article.create', 'article.update', 'article.delete'] as const)(
    'answers every %s as documented, and queues only what it accepts',
    async (event) => {
      await fc.assert(
        fc.asyncProperty(batchesOf(prepared(eventRequest(event), context)), (batch) =>
          checkContentBatch(context, batch),
        ),
        batchedRuns(PROPERTY_RUNS),
      );
      await expectRefusalsRecorded(context);
    },
    timeoutFor(PROPERTY_RUNS),
  );
});
