import type { ApiConfig } from '@ingest/config';
import { MINUTE_MS } from '@ingest/contracts';
import type { FastifyInstance } from 'fastify';
import { digestOf, rateLimitHook } from '../../plugins/rate-limit.js';

/** The validated body's email; the hook runs after validation, so it is always there. */
const emailOf = (body: unknown): string | undefined =>
  typeof body === 'object' && body !== null && 'email' in body && typeof body.email === 'string'
    ? body.email
    : undefined;

/**
 * The limits on password guessing, shared by every route that checks a password (the
 * publishers' login and the operators' session): per client address before anything is
 * read, and per email once the body is validated and the email normalised, so that one
 * account is not guessed at from many addresses. The counters are shared too: a guess is
 * a guess whichever door it knocks on.
 */
export function loginRateLimits(app: FastifyInstance, limits: ApiConfig['limits']) {
  return {
    onRequest: rateLimitHook(app, [
      { name: 'login-ip', max: limits.loginPerIpPerMinute, windowMs: MINUTE_MS, key: (r) => r.ip },
    ]),
    preHandler: rateLimitHook(app, [
      {
        name: 'login-email',
        max: limits.loginPerEmailPerMinute,
        windowMs: MINUTE_MS,
        key: (r) => {
          const email = emailOf(r.body);
          return email === undefined ? undefined : digestOf(email);
        },
      },
    ]),
  };
}
