// The public reads, problem types, health and metrics, fuzzed and held to the document.
// A real worker applies a few articles and a highlight first, so that reads find rows,
// cursors are real, and the success answers are checked as well as the refusals.
import { ERROR_CODES, problemTypeOf, type ErrorCode } from '@ingest/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe } from 'vitest';
import { categoryMark, deleteMarkedCategories } from '../properties/support/category-marks.js';
import { articleData, finalReceipt, sendEvent, uniqueSlug } from '../support/content.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { fuzzEachOperation } from './support/each-operation.js';
import type { OperationProfile } from './support/operation-requests.js';
import { startContract, type ContractSetup } from './support/setup.js';

let setup: ContractSetup;
let worker: WorkerProcess | undefined;
const profiles: Record<string, OperationProfile> = {};

/** Sends an event through the real pipeline and waits until it is applied. */
async function apply(key: string, event: string, data: object): Promise<void> {
  const response = await sendEvent(setup.api, key, event, data);
  const { id } = response.json<{ id: string }>();
  const receipt = await finalReceipt(setup.api, key, id);
  if (receipt.status !== 'succeeded')
    throw new Error(`fixture ${event} ${JSON.stringify(receipt)}`);
}

async function nextCursor(url: string): Promise<string> {
  const response = await setup.api.app.inject({ method: 'GET', url });
  const cursor = response.json<{ nextCursor: string | null }>().nextCursor;
  if (cursor === null) throw new Error(`${url} gave no cursor: ${response.body}`);
  return cursor;
}

beforeAll(async () => {
  setup = await startContract();
  worker = await startWorkerProcess(setup.api.tag);
  const key = setup.credentials.keys['content:create'];
  const category = `Contract ${categoryMark(setup.api)}`;
  const slugs = [uniqueSlug('contract'), uniqueSlug('contract'), uniqueSlug('contract')];
  for (const slug of slugs) await apply(key, 'article.create', articleData({ slug, category }));
  for (const articleSlug of [slugs[0], undefined]) {
    await apply(key, 'highlight.create', {
      title: 'A highlight',
      videoUrl: 'https://video.example.com/v.mp4',
      tags: ['a', 'b'],
      ...(articleSlug === undefined ? {} : { articleSlug }),
    });
  }
  await worker.stop();
  worker = undefined;

  const { publisher, other } = setup.credentials;
  const problemTypes = (Object.keys(ERROR_CODES) as ErrorCode[]).map(
    (code) => problemTypeOf(code).split('/').pop() as string,
  );
  profiles['GET /api/articles'] = {
    queryValues: {
      category: fc.constantFrom(category, category.toUpperCase(), `  ${category} `, 'No such one'),
      author: fc.constantFrom(publisher.handle, publisher.handle.toUpperCase(), other.handle),
      cursor: fc.constant(await nextCursor('/api/articles?limit=1')),
    },
  };
  profiles['GET /api/articles/{slug}'] = {
    pathValues: { slug: fc.constantFrom(...slugs, 'no-such-article', 'a'.repeat(120)) },
  };
  profiles['GET /api/highlights'] = {
    queryValues: { cursor: fc.constant(await nextCursor('/api/highlights?limit=1')) },
  };
  // The catalog's own ETag among the If-None-Match sent, so that its 304 is held to the
  // document too.
  const etag = (await setup.api.app.inject({ method: 'GET', url: '/api/event-types' })).headers
    .etag as string;
  profiles['GET /api/event-types'] = {
    headers: fc.record(
      { 'if-none-match': fc.constantFrom(etag, `W/${etag}`, '"stale"', '*') },
      { requiredKeys: [] },
    ),
  };
  profiles['GET /problems/{type}'] = {
    pathValues: { type: fc.constantFrom(...problemTypes, 'no-such-problem') },
  };
});

afterAll(async () => {
  await worker?.stop();
  if (setup !== undefined) {
    await deleteMarkedCategories(setup.api, categoryMark(setup.api));
    await setup.api.close();
  }
});

describe('reads, problem types, health and metrics answer as the document says', () => {
  fuzzEachOperation('reads', () => setup, profiles);
});
