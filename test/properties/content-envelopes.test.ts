// POST /api/webhooks/content with highlight.create, and with envelopes of any shape
// (unknown events, missing or extra fields, bodies that are no object or no JSON).
// Same properties as content-articles.test.ts; and a regression property for a bug they
// found.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/test-api.js';
import { deleteMarkedCategories } from './support/category-marks.js';
import {
  checkContentBatch,
  contentContext,
  expectRefusalsRecorded,
  prepared,
  type ContentContext,
} from './support/content-property.js';
import { envelopeRequest, eventRequest } from './support/envelope-arbitraries.js';
import { toJsonText } from './support/json-text.js';
import { unstorableChar } from './support/naughty-strings.js';
import { outcome } from './support/oracles.js';
import {
  batchedRuns,
  batchesOf,
  PROPERTY_API_ENV,
  PROPERTY_RUNS,
  REGRESSION_RUNS,
  timeoutFor,
} from './support/property-runs.js';
import { postText } from './support/raw-requests.js';
import { expectOneOf } from './support/response-checks.js';

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

describe('POST /api/webhooks/content, highlights and arbitrary envelopes', () => {
  it(
    'answers every highlight.create as documented, and queues only what it accepts',
    async () => {
      await fc.assert(
        fc.asyncProperty(batchesOf(prepared(eventRequest('highlight.create'), context)), (batch) =>
          checkContentBatch(context, batch),
        ),
        batchedRuns(PROPERTY_RUNS),
      );
      await expectRefusalsRecorded(context);
    },
    timeoutFor(PROPERTY_RUNS),
  );

  it(
    'answers every envelope as documented, and queues only what it accepts',
    async () => {
      await fc.assert(
        fc.asyncProperty(batchesOf(prepared(envelopeRequest, context)), (batch) =>
          checkContentBatch(context, batch),
        ),
        batchedRuns(PROPERTY_RUNS),
      );
      await expectRefusalsRecorded(context);
    },
    timeoutFor(PROPERTY_RUNS),
  );
});

/** Text as a refused event's record keeps it: NUL and lone surrogates become U+FFFD. */
const recordable = (text: string): string => text.toWellFormed().replaceAll('\u0000', '\ufffd');

/**
 * Names that PostgreSQL cannot store as they are: with a NUL or a lone surrogate, or an
 * event name whose first 100 code units (what a refusal quotes) end in half an emoji.
 */
const unstorableName = fc.oneof(
  fc.tuple(fc.string({ maxLength: 8 }), unstorableChar).map(([text, char]) => `${text}${char}`),
  fc.constantFrom('😀', '𝕳', '👨‍👩‍👧').map((emoji) => `${'a'.repeat(99)}${emoji}`),
);

/** Bodies whose refusal names such a field or event (BUG 1), and the code it is refused with. */
const unstorableRejection = fc
  .tuple(unstorableName, fc.constantFrom('event', 'envelope', 'data'))
  .map(([name, where]) => {
    if (where === 'event') {
      return { code: 'UNKNOWN_EVENT' as const, body: { event: name, data: {} } };
    }
    const envelope = { event: 'article.delete', data: { slug: 'some-article' } };
    const body =
      where === 'envelope'
        ? Object.fromEntries([...Object.entries(envelope), [name, 1]])
        : {
            ...envelope,
            data: Object.fromEntries([
              ['slug', 'some-article'],
              [name, 1],
            ]),
          };
    return { code: 'VALIDATION_FAILED' as const, body };
  });

describe('regressions (bugs this suite found)', () => {
  // BUG 1: a refusal quoting NUL or a lone surrogate (field or event name) was answered
  // 500, because PostgreSQL refused to record that text in a jsonb column.
  it(
    'refuses with 400, and records cleaned, an event whose unknown field or event name holds NUL or a lone surrogate',
    async () => {
      await fc.assert(
        fc.asyncProperty(unstorableRejection, async ({ code, body }) => {
          const answer = await postText(
            api,
            '/api/webhooks/content',
            toJsonText(body),
            'application/json',
            { 'x-api-key': context.publisherKey },
          );
          const { problem } = expectOneOf(answer, [outcome(400, code, true)]);
          const row = await api.deps.db.prisma.webhookLog.findUniqueOrThrow({
            where: { id: problem?.eventId ?? '' },
            select: { status: true, event: true, error: true },
          });
          const event = body.event as string;
          expect(row).toEqual({
            status: 'rejected',
            event: recordable(event.slice(0, 100)),
            error: {
              code,
              message: recordable(problem?.detail ?? ''),
              ...(problem?.errors === undefined
                ? {}
                : {
                    errors: problem.errors.map((error) => ({
                      path: recordable(error.path),
                      message: recordable(error.message),
                    })),
                  }),
            },
          });
          context.refusedIds.push(problem?.eventId ?? '');
        }),
        { numRuns: REGRESSION_RUNS },
      );
      await expectRefusalsRecorded(context);
    },
    timeoutFor(REGRESSION_RUNS),
  );
});
