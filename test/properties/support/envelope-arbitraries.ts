import { EVENT_NAMES, type EventName } from '@ingest/events';
import fc from 'fast-check';
import { nearValidData } from './content-arbitraries.js';
import { hostileValue, notJsonText } from './hostile-values.js';
import { mediaType } from './mutations.js';
import { headerSafeNaughtyString, hostileKey, naughtyString } from './naughty-strings.js';

/**
 * The `x-api-key` a request carries: the publisher's (every event), a narrow one that
 * may only send article.update (403 for other events), none, or a forged value.
 */
export type KeyChoice =
  { kind: 'publisher' } | { kind: 'narrow' } | { kind: 'none' } | { kind: 'forged'; value: string };

export const keyChoice: fc.Arbitrary<KeyChoice> = fc.oneof(
  { weight: 16, arbitrary: fc.constant({ kind: 'publisher' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'narrow' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        headerSafeNaughtyString,
        fc.constantFrom(`sk-${'A'.repeat(43)}AAAAAA`, 'sk-', 'Bearer sk-x'),
      )
      .map((value) => ({ kind: 'forged' as const, value })),
  },
);

export interface ContentRequest {
  key: KeyChoice;
  contentType: string;
  body: unknown;
}

/** Requests sending `event` with data near its valid data. */
export const eventRequest = (event: EventName): fc.Arbitrary<ContentRequest> =>
  fc.record({
    key: keyChoice,
    contentType: mediaType,
    body: nearValidData[event].map((data) => ({ event, data })),
  });

const eventField = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...EVENT_NAMES) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'Article.Create',
      'article.create ',
      ' article.delete',
      'article_create',
      'article.',
      'article.create\u0000',
      'highlight.create\u200b',
      'a'.repeat(99) + '😀',
    ),
  },
  { weight: 2, arbitrary: naughtyString },
  { weight: 1, arbitrary: hostileValue },
);

const anyData = fc.oneof(...Object.values(nearValidData), hostileValue);

/** Envelopes of any shape: any event, any data, fields missing or unknown, or no object. */
export const envelopeRequest: fc.Arbitrary<ContentRequest> = fc.record({
  key: keyChoice,
  contentType: mediaType,
  body: fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          fc.record({ event: eventField, data: anyData }, { requiredKeys: [] }),
          fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 2 }),
        )
        .map(([envelope, extra]) => Object.fromEntries([...Object.entries(envelope), ...extra])),
    },
    { weight: 1, arbitrary: hostileValue },
    { weight: 1, arbitrary: notJsonText },
  ),
});
