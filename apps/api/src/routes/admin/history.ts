import { HistoryQuerySchema, HistorySchema } from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';
import { json, problems } from '../../plugins/openapi-responses.js';
import { history } from '../../services/admin/history.js';
import { OPERATOR_DENIED, OPERATOR_SCHEMA } from './operator-schema.js';

/** GET /api/admin/history: what the service, or one account, did minute by minute. */
export const adminHistoryRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onRequest', app.requireAdmin);
  app.get(
    '/history',
    {
      schema: {
        ...OPERATOR_SCHEMA,
        operationId: 'getHistory',
        summary: 'History: accepted, applied, failed, rejected, refused, depth and oldest waiting',
        description:
          'Kept in Redis for a day, written by every API and worker once a second: a restart of either loses nothing but its last second of counts.',
        querystring: HistoryQuerySchema,
        response: {
          200: json(HistorySchema, 'The last hour by minute, or the last day by 10 minutes'),
          ...OPERATOR_DENIED,
          ...problems(400, 404),
        },
      },
    },
    async (request) => history(deps, request.query),
  );
};
