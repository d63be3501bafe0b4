import fastifyJwt from '@fastify/jwt';
import { AppError, isAppError } from '@ingest/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { CHALLENGES, unauthenticated } from '../access/challenges.js';
import { ADMIN_ROLE, type Principal } from '../access/principal.js';
import { accountOfToken } from '../access/token-accounts.js';
import { refuseCrossSite } from './cross-site.js';
import type { ApiDeps } from '../deps.js';
import type { KeySigning } from '../services/api-key-auth.js';

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: { sub: string };
    user: { sub: string };
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling; set by the authenticate hooks below. */
    principal: Principal | null;
    /** For a caller with an API key: what its request signature is checked against. */
    keySigning: KeySigning | null;
  }
  interface FastifyInstance {
    /** A hook that requires a bearer JWT. */
    requireAccount: (request: FastifyRequest) => Promise<void>;
    /** A hook that takes an `x-api-key` or a bearer JWT: whichever authenticates. */
    requireAccountOrKey: (request: FastifyRequest) => Promise<void>;
    /** A hook that requires an `x-api-key`. */
    requireApiKey: (request: FastifyRequest) => Promise<void>;
    /** A hook that requires an operator: an admin account's bearer token or session cookie. */
    requireAdmin: (request: FastifyRequest) => Promise<void>;
  }
}

export const API_KEY_HEADER = 'x-api-key';
/** The operators' session: the same JWT, in an HttpOnly cookie, accepted by admin routes only. */
export const ADMIN_SESSION_COOKIE = 'ingest_admin';
const ISSUER = 'ingest';
const AUDIENCE = 'ingest-api';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The account id a bearer token (or, where allowed, the operators' session cookie) was
 * signed for; undefined when the request carries neither. Every verification failure is
 * the caller's: a wrong algorithm included, which @fastify/jwt would otherwise let
 * through as a 500, and a `sub` that is not an account id at all.
 */
async function tokenSubject(
  request: FastifyRequest,
  allowSessionCookie: boolean,
): Promise<string | undefined> {
  const hasBearer = /^Bearer\s+\S/i.test(request.headers.authorization ?? '');
  const sessionToken = allowSessionCookie ? request.cookies[ADMIN_SESSION_COOKIE] : undefined;
  if (!hasBearer && sessionToken === undefined) return undefined;
  let sub: unknown;
  try {
    ({ sub } =
      hasBearer || sessionToken === undefined
        ? await request.jwtVerify<{ sub: string }>()
        : request.server.jwt.verify<{ sub: string }>(sessionToken));
  } catch (error) {
    const expired =
      error instanceof Error &&
      'code' in error &&
      error.code === 'FST_JWT_AUTHORIZATION_TOKEN_EXPIRED';
    throw unauthenticated(
      expired
        ? 'The token has expired; log in again'
        : 'The token is malformed, not ours, or not valid',
      `${CHALLENGES.bearer}, error="invalid_token"`,
    );
  }
  if (typeof sub !== 'string' || !UUID.test(sub)) {
    throw unauthenticated('The token is malformed, not ours, or not valid', CHALLENGES.bearer);
  }
  return sub;
}

/** Whether the request was authenticated by the session cookie rather than a bearer token. */
const bySessionCookie = (request: FastifyRequest) =>
  !/^Bearer\s+\S/i.test(request.headers.authorization ?? '') &&
  request.cookies[ADMIN_SESSION_COOKIE] !== undefined;

export const authenticationPlugin = fp(
  async (app: FastifyInstance, { deps }: { deps: ApiDeps }) => {
    await app.register(fastifyJwt, {
      secret: deps.config.auth.jwtSecret,
      sign: {
        algorithm: 'HS256',
        expiresIn: deps.config.auth.jwtExpiresInSeconds, // seconds, like jsonwebtoken
        iss: ISSUER,
        aud: AUDIENCE,
      },
      verify: {
        algorithms: ['HS256'],
        allowedIss: ISSUER,
        allowedAud: AUDIENCE,
        requiredClaims: ['sub', 'exp', 'iss', 'aud'],
      },
    });
    app.decorateRequest('principal', null);
    app.decorateRequest('keySigning', null);

    async function principalFromKey(request: FastifyRequest): Promise<Principal> {
      const presented = request.headers[API_KEY_HEADER];
      const { signing, ...key } = await deps.apiKeys.authenticate(
        Array.isArray(presented) ? undefined : presented,
      );
      // Kept beside the principal, not in it: the principal goes to services and logs,
      // the signing secrets only to the signature check.
      request.keySigning = signing;
      return { via: 'apiKey', ...key };
    }

    async function principalFromToken(request: FastifyRequest): Promise<Principal> {
      const sub = await tokenSubject(request, false);
      if (sub === undefined) {
        throw unauthenticated(
          'Send a bearer token: Authorization: Bearer <token>',
          CHALLENGES.bearer,
        );
      }
      return { via: 'token', accountId: (await accountOfToken(deps.db, sub)).id };
    }

    app.decorate('requireAccount', async (request: FastifyRequest) => {
      request.principal = await principalFromToken(request);
    });

    // A client that fills in every scheme the document lists sends both: the one that
    // authenticates wins, and when neither does, the answer says why for each.
    app.decorate('requireAccountOrKey', async (request: FastifyRequest) => {
      const hasKey = request.headers[API_KEY_HEADER] !== undefined;
      const hasToken = request.headers.authorization !== undefined;
      if (hasKey) {
        try {
          request.principal = await principalFromKey(request);
          return;
        } catch (error) {
          if (!hasToken) throw withChallenges(error);
        }
      }
      try {
        request.principal = await principalFromToken(request);
      } catch (error) {
        throw withChallenges(error, hasKey);
      }
    });

    app.decorate('requireApiKey', async (request: FastifyRequest) => {
      try {
        request.principal = await principalFromKey(request);
      } catch (error) {
        throw isAppError(error) && error.code === 'UNAUTHENTICATED'
          ? unauthenticated(error.message, CHALLENGES.apiKey)
          : error;
      }
    });

    app.decorate('requireAdmin', async (request: FastifyRequest) => {
      const sub = await tokenSubject(request, true);
      if (sub === undefined) {
        throw unauthenticated(
          'Send a bearer token (Authorization: Bearer <token>) or log in to the dashboard',
          CHALLENGES.bearer,
        );
      }
      const account = await accountOfToken(deps.db, sub);
      if (account.role !== ADMIN_ROLE)
        throw new AppError('FORBIDDEN', 'Only operators (admin accounts) may do this');
      if (bySessionCookie(request)) refuseCrossSite(request);
      request.principal = { via: 'token', accountId: account.id };
    });
  },
  { name: 'authentication' },
);

/** The principal of a request that passed one of the authenticate hooks. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error('route is missing an authenticate hook');
  return request.principal;
}

/**
 * A 401 of a route that takes a key or a token names both ways in its challenges; when
 * both were sent and neither authenticated, the message says so.
 */
function withChallenges(error: unknown, bothFailed = false): unknown {
  if (!isAppError(error) || error.code !== 'UNAUTHENTICATED') return error;
  return unauthenticated(
    bothFailed
      ? 'Neither the API key (x-api-key) nor the bearer token authenticates'
      : error.message,
    CHALLENGES.apiKey,
    CHALLENGES.bearer,
  );
}
