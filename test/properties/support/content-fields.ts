// Valid and hostile values of the fields that content events share, at the bounds of
// DEFAULT_CONTENT_LIMITS (the limits the test API runs with).
import { DEFAULT_CONTENT_LIMITS as LIMITS, SLUG_MAX_CHARS } from '@ingest/contracts';
import fc from 'fast-check';
import {
  hostileValue,
  numberAround,
  repeatToLength,
  textAround,
  textWithin,
} from './hostile-values.js';
import { storableNaughtyString, withUnstorable } from './naughty-strings.js';

/** Text fields that must hold more than whitespace: title, category, tag. */
export const nonBlankText = (max: number) => textWithin(1, max, { notBlank: true });

/** Hostile values of a text field bounded by `min`..`max`. */
export const hostileText = (min: number, max: number) =>
  fc.oneof(
    { weight: 3, arbitrary: textAround(min, max) },
    { weight: 2, arbitrary: hostileValue },
    { weight: 1, arbitrary: withUnstorable },
    { weight: 1, arbitrary: fc.constantFrom(' ', '\u3000\t\n', '\u200b') },
  );

const SLUG_PATTERN_SOURCE = /^[a-z0-9]{1,12}(-[a-z0-9]{1,12}){0,4}$/;

export const validSlug: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(SLUG_PATTERN_SOURCE) },
  {
    weight: 1,
    arbitrary: fc.stringMatching(/^[a-z0-9]{1,8}$/).map((stem) => {
      const long = `${stem}-${'s'.repeat(SLUG_MAX_CHARS)}`;
      return long.slice(0, SLUG_MAX_CHARS);
    }),
  },
);

export const hostileSlug = fc.oneof(
  fc.constantFrom('Upper-Case', 'a--b', '-a', 'a-', 'a_b', 'a b', 'ä', '', 'a/../b'),
  fc.constant('s'.repeat(SLUG_MAX_CHARS + 1)),
  hostileText(1, SLUG_MAX_CHARS),
);

/**
 * What the contract refuses in a URL, which it stores exactly as sent: whitespace and
 * control characters (a URL has none; a parser would drop or encode them).
 */
const isUrlSpace = (char: string): boolean => {
  const code = char.codePointAt(0) ?? 0;
  return /\s/.test(char) || code < 0x20 || code === 0x7f;
};

/**
 * http(s) URLs of up to 2,048 characters, all of which the API must accept and store as
 * sent: generated ones, ones whose path holds naughty text as it is but for its
 * whitespace and control characters (percent-encoded), and one exactly at the bound.
 */
export const validUrl: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.webUrl({ validSchemes: ['http', 'https'], withFragments: true }) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom('http', 'https', 'HTTPS'), storableNaughtyString)
      .map(([scheme, path]) => {
        const encoded = [...path]
          .map((char) => (isUrlSpace(char) ? encodeURIComponent(char) : char))
          .join('');
        return `${scheme}://media.example.com/${encoded}`;
      }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('a', 'é', '😀').map((unit) => {
      const start = 'https://media.example.com/';
      return `${start}${repeatToLength(unit, LIMITS.urlMaxChars - start.length)}`;
    }),
  },
);

/** Whitespace and control characters, each of which makes a URL one the API refuses. */
const urlSpace = fc.constantFrom(
  ' ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u0001',
  '\u007f',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\ufeff',
);

/** Valid URLs with whitespace or a control character before, after or inside them. */
export const spacedUrl: fc.Arbitrary<string> = fc
  .tuple(validUrl, urlSpace, fc.nat())
  .map(([url, space, at]) => {
    const chars = [...url];
    const cut = at % (chars.length + 1);
    return `${chars.slice(0, cut).join('')}${space}${chars.slice(cut).join('')}`;
  });

export const hostileUrl = fc.oneof(
  fc.constantFrom(
    'javascript:alert(1)',
    'ftp://media.example.com/a',
    'http:media.example.com',
    'https://',
    '//media.example.com/a',
    'data:text/html,<script>alert(1)</script>',
    ' https://media.example.com/a ',
  ),
  fc.constant(`https://media.example.com/${'a'.repeat(LIMITS.urlMaxChars - 25)}`),
  withUnstorable.map((text) => `https://media.example.com/${text}`),
  // Naughty text as it is, whitespace and all: accepted or refused as the contract says.
  storableNaughtyString.map((text) => `https://media.example.com/${text}`),
  spacedUrl,
  hostileText(1, LIMITS.urlMaxChars),
);

/** A paragraph: mostly short, sometimes exactly at the limit. */
const paragraph = fc.oneof(
  { weight: 12, arbitrary: textWithin(0, 300) },
  { weight: 1, arbitrary: textWithin(LIMITS.paragraphMaxChars, LIMITS.paragraphMaxChars) },
);

export const validBody = fc.oneof(
  { weight: 8, arbitrary: fc.array(paragraph, { minLength: 1, maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('p', '😀', '')
      .map((text) => Array.from({ length: LIMITS.bodyMaxParagraphs }, () => text)),
  },
);

export const hostileBody = fc.oneof(
  fc.constant([]),
  fc.constant(Array.from({ length: LIMITS.bodyMaxParagraphs + 1 }, () => 'p')),
  fc.array(hostileText(0, LIMITS.paragraphMaxChars), { minLength: 1, maxLength: 3 }),
  fc.tuple(validBody, hostileValue).map(([body, bad]) => [...body, bad]),
  hostileValue,
);

export const validReadMinutes = fc.integer({ min: 1, max: LIMITS.readMinutesMax });
export const hostileReadMinutes = fc.oneof(
  numberAround(1, LIMITS.readMinutesMax),
  fc.constantFrom('5', '5 minutes'),
  hostileValue,
);

/** `ifVersion` of article.update and article.delete: any version an int4 column holds. */
export const validIfVersion = fc.integer({ min: 1, max: 2 ** 31 - 1 });
export const hostileIfVersion = fc.oneof(numberAround(1, 2 ** 31 - 1), hostileValue);

export { LIMITS };
