import { AccountSchema, AppError, LoginRequestSchema } from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { ADMIN_ROLE } from '../../access/principal.js';
import { ADMIN_SESSION_COOKIE } from '../../plugins/authentication.js';
import { refuseCrossSite } from '../../plugins/cross-site.js';
import { loginWithPassword } from '../../services/accounts.js';
import { empty, HEADERS, json, problems } from '../../plugins/openapi-responses.js';
import { loginRateLimits } from '../auth/login-limits.js';
import { presentAccount } from '../auth/present-account.js';

/**
 * /api/admin/session: operators log in to the dashboard here. The token goes into an
 * HttpOnly, SameSite=Strict cookie, which pages and bull-board can send and scripts
 * cannot read; only admin routes accept it.
 */
export const adminSessionRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (
  app,
  { deps },
) => {
  const { limits, auth } = deps.config;
  const cookieOptions = {
    httpOnly: true,
    sameSite: 'strict' as const,
    path: '/',
    secure: 'auto' as const,
  };

  app.post(
    '/session',
    {
      bodyLimit: limits.authBodyBytes,
      ...loginRateLimits(app, limits),
      schema: {
        operationId: 'logInOperator',
        summary: 'Log in as an operator: sets the dashboard session cookie',
        tags: ['admin'],
        body: LoginRequestSchema,
        response: {
          200: json(
            z.object({ account: AccountSchema }).meta({ id: 'OperatorSession' }),
            'Logged in: the session cookie is set',
            { ...HEADERS.setCookie, ...HEADERS.rateLimit },
          ),
          ...problems(401, 403, 429),
        },
      },
    },
    async (request, reply) => {
      const account = await loginWithPassword(deps, request.body);
      if (account.role !== ADMIN_ROLE)
        throw new AppError('FORBIDDEN', 'This account is not an operator');
      const token = await reply.jwtSign({ sub: account.id });
      reply.setCookie(ADMIN_SESSION_COOKIE, token, {
        ...cookieOptions,
        maxAge: auth.jwtExpiresInSeconds,
      });
      return { account: presentAccount(account) };
    },
  );

  app.delete(
    '/session',
    {
      schema: {
        operationId: 'logOutOperator',
        summary: 'Log out of the dashboard',
        description:
          'Clears the session cookie. With the cookie, the request must come from this site (Origin or Sec-Fetch-Site).',
        tags: ['admin'],
        response: {
          204: empty('Logged out: the session cookie is cleared', HEADERS.setCookie),
          ...problems(403),
        },
      },
    },
    async (request, reply) => {
      if (request.cookies[ADMIN_SESSION_COOKIE] !== undefined) refuseCrossSite(request);
      return reply.clearCookie(ADMIN_SESSION_COOKIE, cookieOptions).code(204).send(null);
    },
  );
};
