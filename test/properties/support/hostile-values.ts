import fc from 'fast-check';
import { compact, RawJson } from './json-text.js';
import { hostileKey, naughtyString, storableNaughtyString } from './naughty-strings.js';

/**
 * Exactly `length` UTF-16 code units of `unit` repeated: lengths count code units, as
 * the contracts do, so a 2-unit emoji at the last place is where a bound is crossed.
 */
export function repeatToLength(unit: string, length: number): string {
  if (length <= 0 || unit.length === 0) return '';
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Like repeatToLength, but never ends on half a surrogate pair: for valid text. */
function wellFormedOfLength(unit: string, length: number): string {
  const text = repeatToLength(unit, length);
  return text.isWellFormed() ? text : `${text.slice(0, -1)}a`;
}

const lengthsAround = (min: number, max: number) =>
  fc.oneof(
    fc.constantFrom(...[min - 1, min, max, max + 1].filter((length) => length >= 0)),
    fc.integer({ min: 0, max: Math.min(max + 1, 80) }),
  );

/** Text at, just inside and just past the bounds `min`..`max`, of naughty units. */
export const textAround = (min: number, max: number): fc.Arbitrary<string | RawJson> =>
  fc
    .tuple(
      naughtyString.filter((unit) => unit.length > 0),
      lengthsAround(min, max),
    )
    .map(([unit, length]) =>
      compact(repeatToLength(unit, length), `${JSON.stringify(unit.slice(0, 8))} x ${length}`),
    );

/**
 * Valid text of `min`..`max` code units (no NUL, no lone surrogate): a naughty string
 * as it is, or one repeated to a length at or inside the bounds. `notBlank` for fields
 * that must hold more than whitespace.
 */
export function textWithin(
  min: number,
  max: number,
  options: { notBlank?: boolean } = {},
): fc.Arbitrary<string | RawJson> {
  const sized = fc
    .tuple(
      storableNaughtyString.filter((unit) => unit.length > 0),
      fc.oneof(
        fc.constantFrom(min, max),
        fc.integer({ min, max: Math.max(min, Math.min(max, 200)) }),
      ),
    )
    .map(([unit, length]) => ({ unit, length, text: wellFormedOfLength(unit, length) }));
  return fc
    .oneof(
      storableNaughtyString.map((text) => ({ unit: text, length: text.length, text })),
      sized,
    )
    .filter(({ text }) => text.length >= min && text.length <= max)
    .filter(({ text }) => !options.notBlank || text.trim() !== '')
    .map(({ unit, length, text }) =>
      compact(text, `${JSON.stringify(unit.slice(0, 8))} x ${length}`),
    );
}

/** Numbers at and past `min`..`max`, fractions, huge ones, and spellings only JSON has. */
export const numberAround = (min: number, max: number): fc.Arbitrary<number | RawJson> =>
  fc.oneof(
    fc.constantFrom(min - 1, min, max, max + 1, 0, -1, min + 0.5, 2 ** 31, 2 ** 53 + 2, -1e308),
    fc.integer({ min, max }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc
      .constantFrom(
        '1e400',
        '-1e400',
        '-0',
        `${max}.0`,
        `${max / 100}e2`,
        `${min}.0000000000000001`,
      )
      .map((text) => new RawJson(text, text)),
  );

/** Arrays and objects nested `depth` deep, as text: far past any recursion limit. */
export const deeplyNested: fc.Arbitrary<RawJson> = fc
  .tuple(
    fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 2, max: 64 }) },
      { weight: 2, arbitrary: fc.integer({ min: 1_000, max: 10_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 100_000, max: 200_000 }) },
    ),
    fc.constantFrom('array', 'object', 'mixed'),
  )
  .map(([depth, shape]) => {
    const open = { array: '[', object: '{"a":', mixed: '[{"a":' }[shape];
    const close = { array: ']', object: '}', mixed: '}]' }[shape];
    const leaf = shape === 'array' ? '' : '1';
    return new RawJson(`${open.repeat(depth)}${leaf}${close.repeat(depth)}`, `${shape} ${depth}`);
  });

/**
 * Strings and arrays past the limits: the auth body limit (16 KiB), a paragraph (50,000)
 * and the content body limit (1 MiB). Sizes in between cost the API a large insert each
 * (refused events are recorded) and find nothing the bounds do not: they are left out.
 */
export const hugeValue: fc.Arbitrary<RawJson> = fc
  .tuple(
    fc.constantFrom('a', '😀', 'é', '\u200b'),
    fc.constantFrom(17_000, 50_001, 1_100_000),
    fc.boolean(),
  )
  .map(([unit, size, asArray]) =>
    asArray
      ? new RawJson(`[${'"p",'.repeat(size / 4)}"p"]`, `array of ${size / 4 + 1}`)
      : new RawJson(JSON.stringify(repeatToLength(unit, size)), `${unit} x ${size}`),
  );

const primitive: fc.Arbitrary<unknown> = fc.oneof(
  naughtyString,
  fc.constantFrom(null, true, false, 0, -1, 1.5, '', {}, []),
  numberAround(1, 600),
);

/** The key a prototype-pollution attempt sets: response-checks.ts looks for it. */
export const POLLUTION_MARK = 'pollutedByHostileInput';

/** Prototype-pollution payloads, as JSON bodies carry them: keys, not prototypes. */
const pollution = fc.constantFrom(
  Object.fromEntries([['__proto__', { [POLLUTION_MARK]: true }]]),
  { constructor: { prototype: { [POLLUTION_MARK]: true } } },
  { prototype: { [POLLUTION_MARK]: true } },
);

/**
 * Any hostile JSON value: the wrong type for whatever field it lands in, a naughty
 * string, objects with prototype-named keys, values nested or sized past all reason.
 */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: primitive },
  { weight: 3, arbitrary: fc.array(primitive, { maxLength: 5 }) },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.tuple(hostileKey, primitive), { maxLength: 4 })
      .map((entries) => Object.fromEntries(entries)),
  },
  { weight: 1, arbitrary: pollution },
  { weight: 1, arbitrary: deeplyNested },
  { weight: 1, arbitrary: hugeValue },
);

/** Bodies that are not JSON, or not the JSON anyone expects. */
export const notJsonText: fc.Arbitrary<RawJson> = fc
  .oneof(
    fc.constantFrom('', ' ', '{"email": ', '{"a":1,}', "{'a':1}", 'NaN', '\ufeff{}', '[]', 'null'),
    naughtyString.map((text) => text.toWellFormed()),
  )
  .map((text) => new RawJson(text, JSON.stringify(text.slice(0, 40))));
