import { AccountSchema, AppError, LoginRequestSchema } from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { ADMIN_ROLE, ADMIN_SESSION_COOKIE } from '../../plugins/authentication.js';
import { digestOf, rateLimitHook } from '../../plugins/rate-limit.js';
import { loginWithPassword } from '../../services/accounts.js';
import { problemResponses } from '../problem-responses.js';
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
      onRequest: rateLimitHook(app, [
        { name: 'login-ip', max: limits.loginPerIpPerMinute, windowMs: 60_000, key: (r) => r.ip },
      ]),
      preHandler: rateLimitHook(app, [
        {
          name: 'login-email',
          max: limits.loginPerEmailPerMinute,
          windowMs: 60_000,
          key: (r) => digestOf((r.body as { email: string }).email),
        },
      ]),
      schema: {
        summary: 'Log in as an operator: sets the dashboard session cookie',
        tags: ['admin'],
        body: LoginRequestSchema,
        response: {
          200: z.object({ account: AccountSchema }),
          ...problemResponses(400, 401, 403, 429),
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
        summary: 'Log out of the dashboard',
        tags: ['admin'],
        response: { 204: z.null().describe('Logged out') },
      },
    },
    async (_request, reply) =>
      reply.clearCookie(ADMIN_SESSION_COOKIE, cookieOptions).code(204).send(null),
  );
};
