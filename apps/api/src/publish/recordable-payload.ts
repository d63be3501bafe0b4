/**
 * What a rejected request is recorded as. PostgreSQL's jsonb refuses the NUL character
 * and unpaired surrogates, and the body may be nested beyond reason; a rejected event
 * must still be recorded, so such a body is stored with those characters replaced
 * (U+FFFD) and its deepest levels cut. Accepted payloads never need this: validation
 * refuses those characters outright.
 */
const MAX_DEPTH = 32;
const CUT = '[nested too deeply to record]';

function recordableString(value: string): string {
  return value.toWellFormed().replaceAll('\u0000', '\uFFFD');
}

export function recordablePayload(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return recordableString(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return CUT;
  if (Array.isArray(value)) return value.map((item) => recordablePayload(item, depth + 1));
  const record: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty, so that a key named __proto__ stays a plain key.
    Object.defineProperty(record, recordableString(key), {
      value: recordablePayload(item, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return record;
}

/**
 * The event name as recorded: a string, at most 100 characters, or null. Cut before it
 * is cleaned, since a cut can split a surrogate pair.
 */
export function recordableEventName(value: unknown): string | null {
  return typeof value === 'string' ? recordableString(value.slice(0, 100)) : null;
}
