import { z } from 'zod';

/**
 * PostgreSQL refuses the NUL character in text and jsonb, so a string carrying one
 * would fail at the database as a 500. Refuse it at the edge with a clear message.
 */
export const hasNoNul = (value: string): boolean => !value.includes('\u0000');
export const NO_NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';

/**
 * JavaScript strings may hold unpaired UTF-16 surrogates (JSON allows `"\\ud800"`); UTF-8
 * cannot encode them, so the database would silently store U+FFFD instead and what is
 * read back would differ from what was sent.
 */
export const isWellFormedText = (value: string): boolean => value.isWellFormed();
export const WELL_FORMED_MESSAGE = 'must be valid Unicode (no unpaired surrogates)';

/**
 * Any string PostgreSQL stores exactly as given, within `min`..`max` characters. Lengths
 * count Unicode code points (an emoji is one), as zod and JSON Schema's maxLength do.
 */
export const storableText = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine(hasNoNul, NO_NUL_MESSAGE)
    .refine(isWellFormedText, WELL_FORMED_MESSAGE);

/** A storable string, trimmed first: for names and labels, not for content. */
export const trimmedText = (min: number, max: number) =>
  z
    .string()
    .trim()
    .min(min)
    .max(max)
    .refine(hasNoNul, NO_NUL_MESSAGE)
    .refine(isWellFormedText, WELL_FORMED_MESSAGE);

/** Whether every string and key in a JSON value is storable (no NUL, no lone surrogate). */
export function isStorableJson(value: unknown, depth = 0): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (typeof value === 'string') return hasNoNul(value) && isWellFormedText(value);
  if (Array.isArray(value)) return value.every((item) => isStorableJson(item, depth + 1));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(
      ([key, item]) => hasNoNul(key) && isWellFormedText(key) && isStorableJson(item, depth + 1),
    );
  }
  return true;
}
/** Deeper than this, a JSON filter is refused rather than walked. */
export const MAX_JSON_DEPTH = 32;
export const STORABLE_JSON_MESSAGE = `must be JSON of at most ${MAX_JSON_DEPTH} levels whose strings and keys are valid Unicode without NUL`;

/**
 * A date-time with an offset, within the years PostgreSQL and JavaScript both represent
 * (1 to 9999): `0000-01-01T00:00:00Z` parses in JavaScript, but no such year exists for
 * PostgreSQL, which would refuse the query.
 */
export const timestamp = () =>
  z.iso.datetime({ offset: true }).refine((text) => {
    const year = new Date(text).getUTCFullYear();
    return year >= 1 && year <= 9999;
  }, 'must be a date-time between the years 1 and 9999');
