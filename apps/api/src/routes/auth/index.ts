import {
  AccountSchema,
  AppError,
  AuthResponseSchema,
  LoginRequestSchema,
  RegisterRequestSchema,
} from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { principalOf } from '../../plugins/authentication.js';
import { digestOf, rateLimitHook } from '../../plugins/rate-limit.js';
import { findAccount, loginWithPassword, registerAccount } from '../../services/accounts.js';
import { problemResponses } from '../problem-responses.js';
import { presentAccount } from './present-account.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** /api/auth: register, log in, and who am I. */
export const authRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (app, { deps }) => {
  const { limits } = deps.config;
  const bodyLimit = limits.authBodyBytes;

  app.post(
    '/register',
    {
      bodyLimit,
      onRequest: rateLimitHook(app, [
        {
          name: 'register-ip',
          max: limits.registerPerIpPerHour,
          windowMs: HOUR_MS,
          key: (r) => r.ip,
        },
      ]),
      schema: {
        summary: 'Register a publisher or bot account',
        tags: ['auth'],
        body: RegisterRequestSchema,
        response: { 201: AuthResponseSchema, ...problemResponses(400, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const account = await registerAccount(deps, request.body);
      const token = await reply.jwtSign({ sub: account.id });
      return reply.code(201).send({ account: presentAccount(account), token });
    },
  );

  app.post(
    '/login',
    {
      bodyLimit,
      onRequest: rateLimitHook(app, [
        {
          name: 'login-ip',
          max: limits.loginPerIpPerMinute,
          windowMs: MINUTE_MS,
          key: (r) => r.ip,
        },
      ]),
      // Counted after validation, when the email is known and normalised.
      preHandler: rateLimitHook(app, [
        {
          name: 'login-email',
          max: limits.loginPerEmailPerMinute,
          windowMs: MINUTE_MS,
          key: (r) => digestOf((r.body as { email: string }).email),
        },
      ]),
      schema: {
        summary: 'Log in with email and password for a bearer token',
        tags: ['auth'],
        body: LoginRequestSchema,
        response: { 200: AuthResponseSchema, ...problemResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const account = await loginWithPassword(deps, request.body);
      const token = await reply.jwtSign({ sub: account.id });
      return { account: presentAccount(account), token };
    },
  );

  app.get(
    '/me',
    {
      onRequest: app.requireAccountOrKey,
      schema: {
        summary: 'The calling account (by bearer token, or by API key to check a key works)',
        tags: ['auth'],
        security: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
        response: {
          200: z.object({
            account: AccountSchema,
            apiKey: z
              .object({ id: z.uuid(), scopes: z.array(z.string()) })
              .optional()
              .meta({ description: 'The key used, when the call was made with one' }),
          }),
          ...problemResponses(401),
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const account = await findAccount(deps, principal.accountId);
      if (account === null) throw new AppError('UNAUTHENTICATED', 'The account no longer exists');
      return {
        account: presentAccount(account),
        ...(principal.via === 'apiKey'
          ? { apiKey: { id: principal.apiKeyId, scopes: principal.scopes } }
          : {}),
      };
    },
  );
};
