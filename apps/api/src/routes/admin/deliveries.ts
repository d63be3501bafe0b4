import {
  AdminDeliveryListSchema,
  AdminDeliveryParamsSchema,
  AdminDeliveryQuerySchema,
  AdminDeliverySchema,
  AdminEndpointListSchema,
  AdminEndpointQuerySchema,
  DeliveryResendRequestSchema,
  DeliveryResendResultSchema,
} from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';
import { json, problems } from '../../plugins/openapi-responses.js';
import { OPERATOR_DENIED, OPERATOR_SCHEMA } from './operator-schema.js';
import {
  listAllEndpoints,
  resendDelivery,
  resendFailed,
  searchDeliveries,
} from '../../services/admin/deliveries.js';
import { operatorReader } from '../../services/readers.js';

/** /api/admin: every account's webhook endpoints and deliveries, and resending them. */
export const adminDeliveryRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onRequest', app.requireAdmin);
  const common = OPERATOR_SCHEMA;
  const denied = OPERATOR_DENIED;

  app.get(
    '/endpoints',
    {
      schema: {
        ...common,
        operationId: 'listAllEndpoints',
        summary: "Every account's webhook endpoints: state, last day's deliveries, last error",
        querystring: AdminEndpointQuerySchema,
        response: { 200: json(AdminEndpointListSchema, 'A page of endpoints'), ...denied },
      },
    },
    async (request) => listAllEndpoints(operatorReader(deps), request.query),
  );

  app.get(
    '/deliveries',
    {
      schema: {
        ...common,
        operationId: 'searchDeliveries',
        summary: 'Search webhook deliveries across accounts, newest first',
        querystring: AdminDeliveryQuerySchema,
        response: { 200: json(AdminDeliveryListSchema, 'A page of deliveries'), ...denied },
      },
    },
    async (request) => searchDeliveries(operatorReader(deps), request.query),
  );

  app.post(
    '/deliveries/:id/resend',
    {
      schema: {
        ...common,
        operationId: 'resendDeliveryAsOperator',
        summary: 'Deliver a message to its endpoint again (the same webhook-id)',
        params: AdminDeliveryParamsSchema,
        response: {
          202: json(AdminDeliverySchema, 'The new delivery, queued'),
          ...denied,
          ...problems(404, 503),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await resendDelivery(deps, request.params.id)),
  );

  app.post(
    '/deliveries/resend',
    {
      schema: {
        ...common,
        operationId: 'resendFailedDeliveries',
        summary: 'Deliver again every failed message matching the filters (up to 1,000 a call)',
        body: DeliveryResendRequestSchema,
        response: {
          200: json(DeliveryResendResultSchema, 'How many were queued again'),
          ...denied,
          ...problems(503),
        },
      },
    },
    async (request) => resendFailed(deps, request.body),
  );
};
