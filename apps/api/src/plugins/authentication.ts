import fastifyJwt from '@fastify/jwt';
import { AppError } from '@ingest/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ApiDeps } from '../deps.js';
import { createApiKeyAuthenticator, type ApiKeyAuthenticator } from '../services/api-key-auth.js';

export type Principal =
  | { via: 'token'; accountId: string }
  | { via: 'apiKey'; accountId: string; apiKeyId: string; scopes: string[] };

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
  }
  interface FastifyInstance {
    /** A hook that requires a bearer JWT. */
    requireAccount: (request: FastifyRequest) => Promise<void>;
    /** A hook that takes an `x-api-key` when present, else a bearer JWT. */
    requireAccountOrKey: (request: FastifyRequest) => Promise<void>;
    /** A hook that requires an `x-api-key`. */
    requireApiKey: (request: FastifyRequest) => Promise<void>;
    /** A hook that requires an operator: an admin account's bearer token or session cookie. */
    requireAdmin: (request: FastifyRequest) => Promise<void>;
    apiKeys: ApiKeyAuthenticator;
  }
}

export const API_KEY_HEADER = 'x-api-key';
/** The operators' session: the same JWT, in an HttpOnly cookie, accepted by admin routes only. */
export const ADMIN_SESSION_COOKIE = 'ingest_admin';
const ISSUER = 'ingest';
export const ADMIN_ROLE = 'admin';
const AUDIENCE = 'ingest-api';

async function accountFromBearer(
  request: FastifyRequest,
  allowSessionCookie = false,
): Promise<string> {
  const hasBearer = /^Bearer\s+\S/i.test(request.headers.authorization ?? '');
  const sessionToken = allowSessionCookie ? request.cookies[ADMIN_SESSION_COOKIE] : undefined;
  if (!hasBearer && sessionToken === undefined) {
    throw new AppError('UNAUTHENTICATED', 'Send a bearer token: Authorization: Bearer <token>');
  }
  try {
    const { sub } =
      hasBearer || sessionToken === undefined
        ? await request.jwtVerify<{ sub: string }>()
        : request.server.jwt.verify<{ sub: string }>(sessionToken);
    return sub;
  } catch (error) {
    // Every verification failure is the caller's: a wrong algorithm included, which
    // @fastify/jwt would otherwise let through as a 500.
    const expired = (error as { code?: string }).code === 'FST_JWT_AUTHORIZATION_TOKEN_EXPIRED';
    throw new AppError(
      'UNAUTHENTICATED',
      expired
        ? 'The token has expired; log in again'
        : 'The token is malformed, not ours, or not valid',
    );
  }
}

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
    const apiKeys = createApiKeyAuthenticator(deps);
    app.decorate('apiKeys', apiKeys);

    async function principalFromKey(request: FastifyRequest): Promise<Principal> {
      const presented = request.headers[API_KEY_HEADER];
      const key = await apiKeys.authenticate(Array.isArray(presented) ? undefined : presented);
      return { via: 'apiKey', ...key };
    }

    app.decorate('requireAccount', async (request: FastifyRequest) => {
      request.principal = { via: 'token', accountId: await accountFromBearer(request) };
    });

    app.decorate('requireAccountOrKey', async (request: FastifyRequest) => {
      request.principal =
        request.headers[API_KEY_HEADER] === undefined
          ? { via: 'token', accountId: await accountFromBearer(request) }
          : await principalFromKey(request);
    });

    app.decorate('requireApiKey', async (request: FastifyRequest) => {
      request.principal = await principalFromKey(request);
    });

    // The role is read from the database on every request, not from the token, so that
    // taking it away takes effect at once.
    app.decorate('requireAdmin', async (request: FastifyRequest) => {
      const accountId = await accountFromBearer(request, true);
      const account = await deps.db.prisma.account.findUnique({
        where: { id: accountId },
        select: { role: true },
      });
      if (account === null) throw new AppError('UNAUTHENTICATED', 'The account no longer exists');
      if (account.role !== ADMIN_ROLE)
        throw new AppError('FORBIDDEN', 'Only operators (admin accounts) may do this');
      request.principal = { via: 'token', accountId };
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
 * Throws 403 INSUFFICIENT_SCOPE unless the caller holds one of `scopes`. A bearer token
 * is the account itself and holds every scope.
 */
export function requireScope(
  principal: Principal,
  scopes: readonly string[],
  needed = scopes[0],
): void {
  if (principal.via === 'token') return;
  if (scopes.some((scope) => principal.scopes.includes(scope))) return;
  throw new AppError('INSUFFICIENT_SCOPE', `This needs an API key with the scope ${needed}`, {
    extensions: { requiredScopes: [...scopes] },
  });
}
