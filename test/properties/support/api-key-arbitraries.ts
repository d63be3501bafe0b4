import { SCOPES } from '@ingest/events';
import fc from 'fast-check';
import { padded } from './auth-arbitraries.js';
import { hostileValue, textAround, textWithin } from './hostile-values.js';
import { nearValid } from './mutations.js';
import { headerSafeNaughtyString, naughtyString, withUnstorable } from './naughty-strings.js';

/** An offset of `minutes` as `HH:MM`. */
const hhmm = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** ISO 8601 date-times with a Z or an offset, from `min` to `max`. */
const isoDateTime = (min: Date, max: Date) =>
  fc
    .tuple(fc.date({ min, max, noInvalidDate: true }), fc.integer({ min: -23 * 60, max: 23 * 60 }))
    .map(([date, offset]) => {
      if (offset === 0) return date.toISOString();
      const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, -1);
      return `${local}${offset < 0 ? '-' : '+'}${hhmm(Math.abs(offset))}`;
    });

/**
 * The last second of 9999, local time, in an offset of one of `signs`: before the end
 * of 9999 in UTC with `+`, past it with `-` (a year of five digits there).
 */
export const lastSecondOf9999 = (...signs: ('+' | '-')[]) =>
  fc
    .tuple(fc.constantFrom(...signs), fc.integer({ min: 1, max: 23 * 60 + 59 }))
    .map(([sign, minutes]) => `9999-12-31T23:59:59${sign}${hhmm(minutes)}`);

const DAY_MS = 86_400_000;

/** POST /api/webhooks/api-keys bodies; expiry is at least a day off, so `now` cannot flip it. */
export const apiKeyBody = (now: number): fc.Arbitrary<unknown> =>
  nearValid(
    fc.record(
      {
        name: padded(textWithin(1, 100, { notBlank: true })),
        scopes: fc.array(fc.constantFrom(...SCOPES), { minLength: 1, maxLength: 24 }),
        expiresAt: isoDateTime(new Date(now + DAY_MS), new Date('9999-12-31T00:00:00Z')),
      },
      { requiredKeys: ['name', 'scopes'] },
    ),
    {
      name: fc.oneof(textAround(1, 100), hostileValue, withUnstorable, fc.constant('   ')),
      scopes: fc.oneof(
        fc.constant([]),
        fc.array(fc.constantFrom(...SCOPES), { minLength: 25, maxLength: 30 }),
        fc.array(fc.oneof(naughtyString, fc.constantFrom('Content:Create', 'content:*')), {
          minLength: 1,
          maxLength: 3,
        }),
        hostileValue,
      ),
      expiresAt: fc.oneof(
        isoDateTime(new Date('0001-01-01T00:00:00Z'), new Date(now - DAY_MS)),
        lastSecondOf9999('+', '-'),
        fc.constantFrom(
          '2099-02-30T00:00:00Z',
          '2099-13-01T00:00:00Z',
          '2099-01-01',
          '2099-01-01T24:00:00Z',
          '+275760-09-13T00:00:00Z',
          '9999-12-31T23:59:59.999999999-23:59',
          'tomorrow',
        ),
        naughtyString,
        hostileValue,
      ),
    },
  );

/** What the Authorization header carries: the real token, or none, or a forged one. */
export type BearerChoice = { kind: 'valid' } | { kind: 'none' } | { kind: 'forged'; value: string };

export const bearerChoice: fc.Arbitrary<BearerChoice> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        headerSafeNaughtyString.map((value) => `Bearer ${value}`),
        headerSafeNaughtyString,
        fc.constantFrom('Bearer', 'Basic dXNlcjpwYXNz', 'Bearer eyJhbGciOiJub25lIn0.e30.'),
      )
      .map((value) => ({ kind: 'forged' as const, value })),
  },
);
