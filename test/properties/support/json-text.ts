import fc from 'fast-check';

/**
 * JSON text that a generated body carries verbatim. It spells what a JavaScript value
 * cannot (`1e400`, `-0`, a body that is not JSON at all), and what JSON.stringify cannot
 * (nesting 100,000 deep overflows its recursion), and it prints in a counterexample as a
 * short label rather than as a megabyte of text.
 */
export class RawJson {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}

  [fc.toStringMethod](): string {
    return `raw(${this.label})`;
  }
}

/**
 * The body text of a generated value. Keys are written as they are owned, so a key named
 * `__proto__` (made with Object.fromEntries, which defines rather than sets) is sent as
 * a key, as a hostile client would send it.
 */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value).map(
      (key) => `${JSON.stringify(key)}:${toJsonText((value as Record<string, unknown>)[key])}`,
    );
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `value` as compact text, or a RawJson when it is long, so counterexamples stay readable. */
export const compact = (value: string, label: string): string | RawJson =>
  value.length <= 1_000 ? value : new RawJson(JSON.stringify(value), label);

/**
 * Fastify's JSON parser (secure-json-parse) refuses a body holding a `__proto__` key, or a
 * `constructor` key whose object value holds `prototype`, anywhere in it. Iterative, like
 * the parser, because bodies may be nested far deeper than recursion allows.
 */
export function isProtoPoisoned(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Object.hasOwn(node, '__proto__')) return true;
    const ctor: unknown = Object.hasOwn(node, 'constructor')
      ? (node as { constructor: unknown }).constructor
      : undefined;
    if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return true;
    for (const child of Object.values(node)) pending.push(child);
  }
  return false;
}

// secure-json-parse's patterns for a key spelled with or without \u escapes.
const SUSPECT_PROTO =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const SUSPECT_CONSTRUCTOR =
  /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

export type Parsed = { ok: true; value: unknown } | { ok: false };

/** What the API's JSON parser makes of `text`: the value, or a refusal (INVALID_JSON). */
export function parseLikeServer(text: string): Parsed {
  const withoutBom = text.startsWith('\ufeff') ? text.slice(1) : text;
  if (withoutBom.length === 0) return { ok: false };
  let value: unknown;
  try {
    value = JSON.parse(withoutBom);
  } catch {
    return { ok: false };
  }
  // The parser's own shortcut: only text that names one of the keys is scanned.
  const suspect = SUSPECT_PROTO.test(withoutBom) || SUSPECT_CONSTRUCTOR.test(withoutBom);
  return suspect && isProtoPoisoned(value) ? { ok: false } : { ok: true, value };
}

export const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Whether Fastify parses a body of this media type as JSON (others are 415). */
export const isMediaTypeJson = (contentType: string | undefined): boolean =>
  contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType);
