import {
  AccountBacklogListSchema,
  AccountBacklogQuerySchema,
  AccountIdParamsSchema,
  AccountPageSchema,
  AccountRefParamsSchema,
  AccountRetentionRequestSchema,
  AccountRetentionSchema,
  AccountShareSchema,
  AccountErasureSchema,
  ErasureIdParamsSchema,
} from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';
import {
  accountBacklogs,
  accountShare,
  setAccountShare,
} from '../../services/admin/account-shares.js';
import { accountPage } from '../../services/admin/account-page.js';
import { setAccountRetention } from '../../services/account-retention.js';
import { eraseAccount, erasure } from '../../services/erasures.js';
import { principalOf } from '../../plugins/authentication.js';
import { json, problems } from '../../plugins/openapi-responses.js';
import { OPERATOR_DENIED, OPERATOR_SCHEMA } from './operator-schema.js';

/**
 * /api/admin: who is waiting in the queue, one account's page, each account's share of the
 * service, and erasing an account.
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

  app.put(
    '/accounts/:id/retention',
    {
      schema: {
        ...common,
        operationId: 'setAccountRetention',
        summary: "Sets how long the event log keeps an account's events",
        description:
          "Within EVENT_LOG_RETENTION_MIN_DAYS and EVENT_LOG_RETENTION_MAX_DAYS, else 400 naming `days`; null returns the account to EVENT_LOG_RETENTION_DAYS. Its receipts follow at once. The workers' next maintenance rounds delete its finished events past a shorter retention, a bounded number a round, and drop partitions only past the longest retention of all accounts.",
        params: AccountIdParamsSchema,
        body: AccountRetentionRequestSchema,
        response: {
          200: json(AccountRetentionSchema, 'Its retention now'),
          ...denied,
          ...problems(404),
        },
      },
    },
    async (request) => {
      const operator = principalOf(request).accountId;
      const retention = await setAccountRetention(deps, request.params.id, request.body.days);
      request.log.warn(
        { operator, accountId: request.params.id, retention },
        'account retention changed',
      );
      return retention;
    },
  );

  app.delete(
    '/accounts/:id',
    {
      schema: {
        ...common,
        operationId: 'eraseAccount',
        summary: 'Erases an account and everything of it',
        description:
          'At once: its keys go (a publish with one is refused), its unfinished events are never applied, and its articles and highlights answer 404. The workers then delete the rest, from PostgreSQL, Redis and the event log archives, and finish the erasure record, which stays without the account. Asked again while it runs, answers the same erasure.',
        params: AccountRefParamsSchema,
        response: {
          202: json(AccountErasureSchema, 'The erasure, started or under way'),
          ...denied,
          ...problems(404),
        },
      },
    },
    async (request, reply) => {
      const operator = principalOf(request).accountId;
      const started = await eraseAccount(deps, request.params.id, operator);
      request.log.warn({ operator, erasure: started.id }, 'account erasure started');
      return reply.status(202).send(started);
    },
  );

  app.get(
    '/erasures/:id',
    {
      schema: {
        ...common,
        operationId: 'getErasure',
        summary: "An erasure's record: counts so far, and when it finished",
        params: ErasureIdParamsSchema,
        response: { 200: json(AccountErasureSchema, 'The erasure'), ...denied, ...problems(404) },
      },
    },
    async (request) => erasure(deps, request.params.id),
  );
};
