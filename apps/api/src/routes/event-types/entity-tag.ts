import { createHash } from 'node:crypto';

/**
 * A strong entity tag of a body: the same body gives the same tag on every API instance,
 * so a cache behind a load balancer revalidates against any of them.
 */
export const entityTagOf = (body: string): string =>
  `"${createHash('sha256').update(body).digest('base64url')}"`;

/**
 * Whether If-None-Match names `tag` (RFC 9110 13.1.2: `*`, or a list compared weakly, so
 * `W/"x"` matches `"x"`).
 */
export function matchesIfNoneMatch(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header
    .split(',')
    .map((candidate) => candidate.trim().replace(/^W\//, ''))
    .includes(tag);
}
