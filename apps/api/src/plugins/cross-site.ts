import { AppError } from '@ingest/contracts';
import type { FastifyRequest } from 'fastify';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether Origin names this API's origin; URL compares them normalised (`:80` or not). */
function isOwnOrigin(request: FastifyRequest): boolean {
  const { origin } = request.headers;
  if (origin === undefined) return false;
  try {
    return new URL(origin).origin === new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return false; // `Origin: null` (a sandboxed page), or no usable Host
  }
}

/**
 * A browser sends the session cookie with any request to this site, including one a
 * hostile page makes it send (cross-site request forgery). SameSite=Strict stops that in
 * current browsers; this is the second line, checked on every state-changing request the
 * cookie authenticates: the browser must say the request comes from this origin, through
 * Sec-Fetch-Site or Origin, which pages cannot forge. Same-origin calls of the dashboard
 * pass; non-browser clients use a bearer token and are not concerned. Written here rather
 * than with @fastify/csrf-protection, whose tokens would need a round trip from the page
 * and a secret of their own for what two headers already tell.
 */
export function refuseCrossSite(request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method)) return;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) {
    if (site === 'same-origin') return;
  } else if (isOwnOrigin(request)) return;
  throw new AppError(
    'FORBIDDEN',
    'A request authenticated by the session cookie must come from this site (Origin or Sec-Fetch-Site)',
  );
}
