// Generators for the parts of a request that are not the body: path segments, query
// strings and header values, built from the document's parameter schemas plus values the
// test knows to be real (ids, slugs, cursors), and the hostile values the README says the
// API refuses cleanly: NUL, lone surrogates, percent-escape junk, huge and ancient values.
import fc from 'fast-check';
import type { JsonSchema, ParameterObject } from './document.js';
import { loneSurrogate, naughtyString } from '../../properties/support/naughty-strings.js';

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses to encode) goes out
 * as the three bytes UTF-8 would give it (WTF-8): what a sloppy client really sends.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** Escapes as clients get them wrong, sent raw (not encoded again). */
const PERCENT_JUNK = [
  '%',
  '%f',
  '%ff',
  '%FF%FE',
  '%zz',
  '%u0041',
  '%C0%80', // an overlong NUL
  '%E0%A4%A', // a cut sequence
  '%ED%A0%80', // a lone surrogate, as UTF-8 would spell it
  '%F4%90%80%80', // past U+10FFFF
  '%00',
  'a%00b',
  '%2F',
  'a%2Fb',
  // No dot segments ('.', '..', '%2e%2e'): URL resolution removes them, so the request
  // addresses another path (`/deliveries/./resend` is the bulk `/deliveries/resend`) and
  // its answer is that operation's, not the one the case names.
  '%20',
  '+',
  '%25',
  '%0d%0aX-Injected:%201',
];

/** Sizes around the limits: 120 (slugs), 256 (path parameters), 1000, 10,000. */
const hugeText = fc
  .tuple(
    fc.constantFrom(121, 201, 255, 256, 257, 1_001, 2_048, 10_001),
    fc.constantFrom('a', '9', 'é'),
  )
  .map(([length, unit]) => percentEncode(unit.repeat(length)));

const UUID_LOOKALIKES = [
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '01A20148-E1B0-7526-BDDA-CC66B6A7EBE6',
  '{01a20148-e1b0-7526-bdda-cc66b6a7ebe6}',
  '01a20148e1b07526bddacc66b6a7ebe6',
  '01a20148-e1b0-7526-bdda-cc66b6a7ebe',
  '01a20148-e1b0-9526-bdda-cc66b6a7ebe6',
  'urn:uuid:01a20148-e1b0-7526-bdda-cc66b6a7ebe6',
];

/**
 * A raw path segment for a parameter: mostly a `valid` value (real ids that exist, so
 * the success path runs), else garbage, NUL, lone surrogates, very long, escape junk.
 */
export const pathSegment = (valid: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 24, arbitrary: valid.map(percentEncode) },
    { weight: 2, arbitrary: naughtyString.map(percentEncode) },
    { weight: 1, arbitrary: fc.constantFrom(...UUID_LOOKALIKES) },
    { weight: 1, arbitrary: fc.uuid({ version: [1, 4, 7] }) },
    { weight: 1, arbitrary: loneSurrogate.map((unit) => percentEncode(`a${unit}`)) },
    { weight: 1, arbitrary: hugeText },
    { weight: 2, arbitrary: fc.constantFrom(...PERCENT_JUNK) },
    { weight: 1, arbitrary: fc.constant('') },
  );

const ISO_EDGES = [
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '1970-01-01T00:00:00.000000001Z',
  '9999-12-31T23:59:59.999Z',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2024-02-29T00:00:00Z',
  '2026-11-22T24:00:00Z',
  '2026-11-22T00:00:00+23:59',
  '2026-11-22T00:00:00-00:00',
  '2026-11-22',
  '2026-11-22 00:00:00Z',
  '2026-11-22T00:00:00',
  'now',
];
const NUMBER_EDGES = [
  '0',
  '-1',
  '1',
  '100',
  '101',
  '1e2',
  '0x10',
  ' 5',
  '5 ',
  '5.5',
  '05',
  '99999999999999999999',
  'NaN',
  'Infinity',
  '1,2',
  '',
];

/** A value its schema accepts: an enum member, a number in range, a date-time, a string. */
export function schemaValue(schema: JsonSchema): fc.Arbitrary<string> {
  const choices = schema.enum as unknown[] | undefined;
  if (choices !== undefined) return fc.constantFrom(...choices.map(String));
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
    const max = typeof schema.maximum === 'number' ? schema.maximum : 1000;
    return fc.oneof(
      fc.constantFrom(String(min), String(max)),
      fc.integer({ min, max }).map(String),
    );
  }
  if (schema.format === 'uuid') return fc.uuid({ version: 7 });
  if (schema.format === 'date-time') {
    return fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((date) => date.toISOString());
  }
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 100;
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length <= maxLength);
  }
  return fc.string({ maxLength: Math.min(maxLength, 40) });
}

/**
 * A raw query value for a parameter: a valid one (the schema's, or `known` real values
 * weighted up), or one of the values lists get wrong.
 */
export function queryValue(schema: JsonSchema, known?: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const valid = known === undefined ? schemaValue(schema) : fc.oneof(known, schemaValue(schema));
  return fc.oneof(
    { weight: 40, arbitrary: valid.map(percentEncode) },
    { weight: 2, arbitrary: naughtyString.map(percentEncode) },
    { weight: 1, arbitrary: fc.constantFrom('a%00b', '%00', '%00%00') },
    { weight: 1, arbitrary: loneSurrogate.map((unit) => percentEncode(`x${unit}`)) },
    { weight: 1, arbitrary: hugeText },
    { weight: 2, arbitrary: fc.constantFrom(...ISO_EDGES).map(percentEncode) },
    { weight: 2, arbitrary: fc.constantFrom(...NUMBER_EDGES).map(percentEncode) },
    { weight: 1, arbitrary: fc.constantFrom(...PERCENT_JUNK) },
  );
}

/**
 * A query string over the declared parameters: each present or not, plus at times an
 * unknown parameter, a repeated one, or syntax nobody should send (`limit[]=1`, `&&`).
 */
export function queryString(
  parameters: ParameterObject[],
  known: Record<string, fc.Arbitrary<string>> = {},
): fc.Arbitrary<string> {
  const declared = parameters.filter((parameter) => parameter.in === 'query');
  const pairs = declared.map((parameter) =>
    fc.option(
      queryValue(parameter.schema ?? {}, known[parameter.name]).map(
        (value) => `${encodeURIComponent(parameter.name)}=${value}`,
      ),
      { nil: undefined, freq: 2 },
    ),
  );
  const names = declared.map((parameter) => parameter.name);
  const extra = fc.oneof(
    { weight: 2, arbitrary: naughtyString.map((name) => `${percentEncode(name)}=1`) },
    ...(names.length === 0
      ? []
      : [
          {
            weight: 3,
            arbitrary: fc
              .tuple(fc.constantFrom(...names), fc.constantFrom('1', '20', 'x', '', '%00'))
              .map(([name, value]) => `${name}=${value}`),
          },
          {
            weight: 1,
            arbitrary: fc
              .constantFrom(...names)
              .chain((name) =>
                fc.constantFrom(`${name}[]=1`, `${name}[a]=1`, name, `${name}=1;x=2`),
              ),
          },
        ]),
    {
      weight: 1,
      arbitrary: fc.constantFrom('&&', '=x', '=', '&', '%ff=1', 'a=%ff', '__proto__=1'),
    },
  );
  return fc
    .tuple(
      fc.tuple(...pairs),
      fc.oneof(
        { weight: 5, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.array(extra, { minLength: 1, maxLength: 2 }) },
      ),
      fc.boolean(),
    )
    .map(([chosen, extras, extrasFirst]) => {
      const present = chosen.filter((pair): pair is string => pair !== undefined);
      return (extrasFirst ? [...extras, ...present] : [...present, ...extras]).join('&');
    });
}

/**
 * Text a header can carry on the wire: Node's parser takes bytes 0x20-0xFF and tab, and
 * refuses CR, LF and NUL before the app sees them (inject would let them through, which
 * no client can do), so other characters become `?`.
 */
export const headerSafe = (text: string): string => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

/** Values for x-request-id: kept when 1-128 of `A-Z a-z 0-9 . _ : -`, replaced otherwise. */
export const requestIdHeader: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/) },
  { weight: 1, arbitrary: fc.constantFrom('', 'a'.repeat(129), 'a b', 'id;drop', 'ä', '../../x') },
  { weight: 1, arbitrary: naughtyString.map(headerSafe) },
);

/** Idempotency-Keys: a few that recur (replays, mismatches), new ones, malformed ones. */
export const idempotencyKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('key-1', 'key-2', 'key-3') },
  { weight: 3, arbitrary: fc.stringMatching(/^[\x21-\x7e]{1,255}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', ' ', 'k'.repeat(256), 'k'.repeat(255), 'clé', 'a b'),
  },
);

export const preferHeader: fc.Arbitrary<string> = fc.constantFrom(
  'wait=0',
  'wait=1',
  'wait=2',
  'wait=30',
  'wait=-1',
  'wait=abc',
  'wait=1.5',
  'wait=99999999999999999999',
  'WAIT=1',
  'wait=1, handling=strict',
  'respond-async',
  'return=minimal',
  '',
  'wait',
);

/** Origins a browser might send with the operators' cookie: ours, another site, none. */
export const originHeader: fc.Arbitrary<string> = fc.constantFrom(
  'http://localhost',
  'http://localhost:80',
  'https://evil.example',
  'null',
  'http://localhost.evil.example',
  '*',
);

export const acceptHeader: fc.Arbitrary<string> = fc.constantFrom(
  '*/*',
  'application/json',
  'application/problem+json',
  'text/html',
  'application/xml',
  'text/plain;q=0',
);
