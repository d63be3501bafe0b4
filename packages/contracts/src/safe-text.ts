import { z } from 'zod';

/**
 * PostgreSQL refuses the NUL character in text and jsonb, so a string carrying one
 * would fail at the database as a 500. Refuse it at the edge with a clear message.
 */
export const hasNoNul = (value: string): boolean => !value.includes('\u0000');
export const NO_NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';

/** A string that can be stored: no NUL character, trimmed, within `min`..`max` characters. */
export const trimmedText = (min: number, max: number) =>
  z.string().trim().min(min).max(max).refine(hasNoNul, NO_NUL_MESSAGE);
