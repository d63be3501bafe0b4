import fc from 'fast-check';
import { hostileValue, notJsonText } from './hostile-values.js';
import { hostileKey } from './naughty-strings.js';

export type Fields = Record<string, unknown>;

/**
 * Fields of `record` in order, plus `extra` entries, as an object that owns every key:
 * Object.fromEntries defines properties, so `__proto__` becomes a key, not a prototype.
 */
const withEntries = (record: Fields, extra: [string, unknown][]): Fields =>
  Object.fromEntries([...Object.entries(record), ...extra]);

/**
 * Requests near the valid ones, where bugs live: `valid` as it is, or with fields
 * replaced by hostile values (`hostile` names, for each field, the values worth trying
 * there: bounds, wrong types), fields dropped, unknown fields added (prototype names
 * among them), or the whole body replaced by something that is no object at all.
 * `validWeight` sets the share of untouched valid requests.
 */
export function nearValid(
  valid: fc.Arbitrary<Fields>,
  hostile: Record<string, fc.Arbitrary<unknown>>,
  validWeight = 3,
): fc.Arbitrary<unknown> {
  const fieldNames = Object.keys(hostile);
  const replaced = fc
    .tuple(valid, fc.record(hostile, { requiredKeys: [] }))
    .map(([record, patch]) => ({ ...record, ...patch }));
  const anyFieldHostile = fc
    .tuple(valid, fc.constantFrom(...fieldNames), hostileValue)
    .map(([record, field, value]) => ({ ...record, [field]: value }));
  const dropped = fc
    .tuple(valid, fc.subarray(fieldNames, { minLength: 1 }))
    .map(([record, fields]) =>
      Object.fromEntries(Object.entries(record).filter(([key]) => !fields.includes(key))),
    );
  const extended = fc
    .tuple(valid, fc.array(fc.tuple(hostileKey, hostileValue), { minLength: 1, maxLength: 3 }))
    .map(([record, extra]) => withEntries(record, extra));
  return fc.oneof(
    { weight: validWeight, arbitrary: valid },
    { weight: 5, arbitrary: replaced },
    { weight: 2, arbitrary: anyFieldHostile },
    { weight: 1, arbitrary: dropped },
    { weight: 2, arbitrary: extended },
    { weight: 1, arbitrary: fc.oneof(hostileValue, notJsonText) },
  );
}

/** Media types a client might send: mostly JSON, sometimes not (415). */
export const mediaType: fc.Arbitrary<string> = fc.oneof(
  { weight: 20, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('application/json; charset=utf-8', 'Application/JSON'),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'text/json'),
  },
);
