import {
  AccountErasureSchema,
  AccountSchema,
  AppError,
  EraseOwnAccountRequestSchema,
  AuthResponseSchema,
  LoginRequestSchema,
  RegisterRequestSchema,
  HOUR_MS,
} from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { principalOf } from '../../plugins/authentication.js';
import { rateLimitHook } from '../../plugins/rate-limit.js';
import { findAccount, loginWithPassword, registerAccount } from '../../services/accounts.js';
import { eraseOwnAccount } from '../../services/erasures.js';
import { HEADERS, json, problems } from '../../plugins/openapi-responses.js';
import { loginRateLimits } from './login-limits.js';
import { presentAccount } from './present-account.js';

/** /api/auth: register, log in, who am I, and erase me. */
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
        operationId: 'registerAccount',
        summary: 'Register a publisher or bot account',
        tags: ['auth'],
        body: RegisterRequestSchema,
        response: {
          201: json(
            AuthResponseSchema,
            'Registered: the account and a bearer token',
            HEADERS.rateLimit,
          ),
          ...problems(409, 429),
        },
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
      ...loginRateLimits(app, limits),
      schema: {
        operationId: 'logIn',
        summary: 'Log in with email and password for a bearer token',
        tags: ['auth'],
        body: LoginRequestSchema,
        response: {
          200: json(
            AuthResponseSchema,
            'Logged in: the account and a bearer token',
            HEADERS.rateLimit,
          ),
          ...problems(401, 429),
        },
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
        operationId: 'getCurrentAccount',
        summary: 'The calling account (by bearer token, or by API key to check a key works)',
        description:
          'With both an API key and a bearer token, the one that authenticates is used (the key first).',
        tags: ['auth'],
        security: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
        response: {
          200: json(
            z
              .object({
                account: AccountSchema,
                apiKey: z
                  .object({ id: z.uuid(), scopes: z.array(z.string()) })
                  .optional()
                  .meta({ description: 'The key used, when the call was made with one' }),
              })
              .meta({ id: 'CurrentAccount' }),
            'The account, and the key when one was used',
          ),
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

  const passwordLimits = loginRateLimits(app, limits);
  app.post(
    '/me/erasure',
    {
      bodyLimit,
      onRequest: [app.requireAccount, passwordLimits.onRequest],
      schema: {
        operationId: 'eraseOwnAccount',
        summary: 'Erases the calling account and everything of it, given its password',
        description:
          "As an operator's erasure (DELETE /api/admin/accounts/{id}): at once its keys and tokens stop working, its unfinished events are never applied and its content answers 404; the workers delete the rest. The answer is the erasure's record, the last thing the account can read.",
        tags: ['auth'],
        security: [{ bearerAuth: [] }],
        body: EraseOwnAccountRequestSchema,
        response: {
          202: json(AccountErasureSchema, 'The erasure, started or under way'),
          ...problems(401, 429),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      const started = await eraseOwnAccount(deps, accountId, request.body.password);
      request.log.warn({ erasure: started.id }, 'account erasure started by the account');
      return reply.status(202).send(started);
    },
  );
};
