// Request bodies: valid per the operation's schema, mutated near it (the property suite's
// nearValid generators, reused), hostile, invalid UTF-8, empty, JSON null, deeply nested;
// under the Content-Types clients send, charsets included.
import fc from 'fast-check';
import {
  deeplyNested,
  hostileValue,
  notJsonText,
} from '../../properties/support/hostile-values.js';
import { toJsonText } from '../../properties/support/json-text.js';

export interface RawBody {
  body?: string | Buffer;
  contentType?: string;
}

export const contentTypeHeader: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 24, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json; charset="utf-8"',
      'Application/JSON',
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-16',
      'application/json; charset=nonsense',
      'application/json; boundary=x',
      'application/problem+json',
      'application/jsonx',
      'application/json, text/plain',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      '',
      '*/*',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** Byte sequences UTF-8 forbids, spliced into a JSON string where a decoder meets them. */
const INVALID_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0x80], // overlong NUL
  [0xed, 0xa0, 0x80], // a lone surrogate
  [0xe2, 0x82], // cut short
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0x80],
];

const invalidUtf8 = (text: string, bytes: number[]): Buffer => {
  const at = Math.max(0, text.indexOf('"', text.indexOf(':') + 1) + 1);
  return Buffer.concat([
    Buffer.from(text.slice(0, at)),
    Buffer.from(bytes),
    Buffer.from(text.slice(at)),
  ]);
};

/**
 * Bodies for an operation that takes one: mostly `nearValid` values (valid or one mutation
 * away, so validation and the success path both run), else the shapes parsers choke on.
 */
export function bodyFor(nearValid: fc.Arbitrary<unknown>): fc.Arbitrary<RawBody> {
  const text: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
    { weight: 14, arbitrary: nearValid.map(toJsonText) },
    { weight: 1, arbitrary: hostileValue.map(toJsonText) },
    { weight: 1, arbitrary: notJsonText.map((raw) => raw.text) },
    { weight: 1, arbitrary: deeplyNested.map((raw) => raw.text) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(nearValid.map(toJsonText), fc.constantFrom(...INVALID_UTF8))
        .map(([json, bytes]) => invalidUtf8(json, bytes)),
    },
    { weight: 1, arbitrary: fc.constantFrom('', 'null', '[]', '{}', '"text"', '0') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  return fc.tuple(text, contentTypeHeader).map(([body, contentType]) => ({
    ...(body === undefined ? {} : { body }),
    ...(contentType === undefined ? {} : { contentType }),
  }));
}

/** For an operation that takes no body: none, mostly; now and then one anyway. */
export const strayBody: fc.Arbitrary<RawBody> = fc.oneof(
  { weight: 14, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: bodyFor(hostileValue) },
);
