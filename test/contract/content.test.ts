// Publishing and receipts, fuzzed and held to the document. A real worker runs, so that
// `Prefer: wait` gets real outcomes (200 with the receipt, 404 ARTICLE_NOT_FOUND, 409
// SLUG_TAKEN), and bodies come from the property suite's event generators: valid events,
// events one mutation away, envelopes of any shape.
import { EVENT_NAMES } from '@ingest/events';
import fc from 'fast-check';
import { afterAll, beforeAll, describe } from 'vitest';
import {
  categoryMark,
  deleteMarkedCategories,
  markCategory,
} from '../properties/support/category-marks.js';
import {
  nearValidData,
  validArticleCreate,
  validHighlightCreate,
} from '../properties/support/content-arbitraries.js';
import { envelopeRequest } from '../properties/support/envelope-arbitraries.js';
import { createKey } from '../support/accounts.js';
import { accept, articleData, sendEvent, uniqueSlug } from '../support/content.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { idempotencyKey, preferHeader } from './support/arbitraries.js';
import { fuzzEachOperation } from './support/each-operation.js';
import type { OperationProfile } from './support/operation-requests.js';
import { startContract, type ContractSetup } from './support/setup.js';

let setup: ContractSetup;
let worker: WorkerProcess | undefined;
const profiles: Record<string, OperationProfile> = {};

const sometimes = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number) =>
  fc.oneof({ weight: 1, arbitrary }, { weight: oneIn - 1, arbitrary: fc.constant(undefined) });

beforeAll(async () => {
  // A wait of up to 2 s is enough for this worker's outcomes, and bounds a request whose
  // outcome never comes (a paused or failing event) at 2 s, not 30.
  setup = await startContract({ WAIT_MAX_SECONDS: '2' });
  const { api, credentials } = setup;
  worker = await startWorkerProcess(api.tag);
  const mark = categoryMark(api);
  const key = credentials.keys['content:create'];
  const ownIds = [
    await accept(
      api,
      key,
      'article.create',
      articleData({ slug: uniqueSlug('contract'), category: `C ${mark}` }),
    ),
    await accept(api, key, 'article.update', {
      slug: uniqueSlug('missing'),
      title: 'Nothing to update',
    }),
  ];
  const rejected = await sendEvent(api, key, 'article.create', { title: '' });
  const rejectedId = rejected.json<{ eventId: string }>().eventId;
  const otherKey = await createKey(api, credentials.other);
  const othersId = await accept(api, otherKey.key, 'article.delete', { slug: uniqueSlug('gone') });
  const list = await api.app.inject({
    method: 'GET',
    url: '/api/webhooks/content?limit=1',
    headers: { authorization: `Bearer ${credentials.publisher.token}` },
  });
  const cursor = list.json<{ nextCursor: string }>().nextCursor;

  const events = EVENT_NAMES.map((event) => nearValidData[event].map((data) => ({ event, data })));
  // Valid creates weighted up: they are what reaches 202, and 200 or 409 under Prefer: wait.
  const creates = fc.oneof(
    validArticleCreate().map((data) => ({ event: 'article.create', data })),
    validHighlightCreate().map((data) => ({ event: 'highlight.create', data })),
  );
  profiles['POST /api/webhooks/content'] = {
    body: fc
      .oneof(
        { weight: 4, arbitrary: fc.oneof(...events) },
        { weight: 2, arbitrary: creates },
        { weight: 1, arbitrary: envelopeRequest.map((r) => r.body) },
      )
      .map((body) => markCategory(body, mark)),
    headers: fc.record({
      prefer: sometimes(preferHeader, 6),
      'idempotency-key': sometimes(idempotencyKey, 3),
    }),
  };
  // A batch: items like the single publish's bodies, some keyed (a few keys repeated), and
  // now and then a body that is no batch at all.
  const batchItem = fc
    .tuple(fc.oneof(...events, creates), sometimes(fc.constantFrom('k1', 'k2', 'k3'), 3))
    .map(([body, key]) => (key === undefined ? body : { ...body, idempotencyKey: key }));
  profiles['POST /api/webhooks/content/batch'] = {
    body: fc
      .oneof(
        { weight: 6, arbitrary: fc.array(batchItem, { minLength: 1, maxLength: 8 }) },
        { weight: 1, arbitrary: fc.array(fc.anything(), { maxLength: 3 }) },
      )
      .map((items) => ({ events: items.map((item) => markCategory(item, mark)) })),
  };
  profiles['GET /api/webhooks/content'] = {
    queryValues: { cursor: fc.constant(cursor), event: fc.constantFrom(...EVENT_NAMES) },
  };
  profiles['GET /api/webhooks/content/{id}'] = {
    pathValues: { id: fc.constantFrom(...ownIds, rejectedId, othersId) },
  };
});

afterAll(async () => {
  await worker?.stop();
  if (setup !== undefined) {
    await deleteMarkedCategories(setup.api, categoryMark(setup.api));
    await setup.api.close();
  }
});

describe('publishing and receipts answer as the document says', () => {
  fuzzEachOperation('content', () => setup, profiles);
});
