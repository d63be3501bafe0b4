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

/** Any string PostgreSQL stores exactly as given, within `min`..`max` characters. */
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
