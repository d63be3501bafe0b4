import {
  AccountBacklogListSchema,
  AccountBacklogQuerySchema,
  AccountIdParamsSchema,
  AccountPageSchema,
  AccountRefParamsSchema,
  AccountShareSchema,
} from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';
import {
  accountBacklogs,
  accountShare,
  setAccountShare,
} from '../../services/admin/account-shares.js';
import { accountPage } from '../../services/admin/account-page.js';
import { principalOf } from '../../plugins/authentication.js';
import { json, problems } from '../../plugins/openapi-responses.js';
import { OPERATOR_DENIED, OPERATOR_SCHEMA } from './operator-schema.js';

/**
 * /api/admin: who is waiting in the queue, one account's page, and each account's share of
 * the service.
 */
export const adminAccountRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onRequest', app.requireAdmin);
  const common = OPERATOR_SCHEMA;
  const denied = OPERATOR_DENIED;

  app.get(
    '/queue/accounts',
    {
      schema: {
        ...common,
        operationId: 'listAccountBacklogs',
        summary: 'The accounts with the most unfinished events: backlog, oldest waiting, share',
        querystring: AccountBacklogQuerySchema,
        response: {
          200: json(AccountBacklogListSchema, 'The busiest accounts first'),
          ...denied,
        },
      },
    },
    async (request) => accountBacklogs(deps, request.query.limit),
  );

  app.get(
    '/accounts/:id',
    {
      schema: {
        ...common,
        operationId: 'getAccountPage',
        summary:
          'One account: backlog, share and its changes, keys, endpoints, recent failures and refusals',
        params: AccountRefParamsSchema,
        response: { 200: json(AccountPageSchema, 'The account'), ...denied, ...problems(404) },
      },
    },
    async (request) => accountPage(deps, request.params.id),
  );

  app.get(
    '/accounts/:id/share',
    {
      schema: {
        ...common,
        operationId: 'getAccountShare',
        summary: "An account's share of the service: weight and cap on events in flight",
        params: AccountIdParamsSchema,
        response: { 200: json(AccountShareSchema, 'Its share'), ...denied, ...problems(404) },
      },
    },
    async (request) => accountShare(deps, request.params.id),
  );

  app.put(
    '/accounts/:id/share',
    {
      schema: {
        ...common,
        operationId: 'setAccountShare',
        summary: "Sets an account's share of the service",
        description:
          'Applies on this API instance at once; on other instances and on the workers within 5 s.',
        params: AccountIdParamsSchema,
        body: AccountShareSchema,
        response: { 200: json(AccountShareSchema, 'Its new share'), ...denied, ...problems(404) },
      },
    },
    async (request) => {
      const operator = principalOf(request).accountId;
      const share = await setAccountShare(deps, request.params.id, request.body, operator);
      request.log.warn({ operator, accountId: request.params.id, share }, 'account share changed');
      return share;
    },
  );
};
