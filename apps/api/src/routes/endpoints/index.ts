import { EndpointCreateRequestSchema, EndpointUpdateRequestSchema } from '@ingest/events';
import {
  DeliveryListQuerySchema,
  DeliveryListSchema,
  DeliveryParamsSchema,
  DeliverySchema,
  EndpointCreatedSchema,
  EndpointIdParamsSchema,
  EndpointListSchema,
  EndpointSchema,
  EndpointSecretRotatedSchema,
} from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';
import { principalOf } from '../../plugins/authentication.js';
import { empty, json, problems } from '../../plugins/openapi-responses.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from '../../services/webhook-endpoints.js';
import { listDeliveries, pingEndpoint, resendDelivery } from '../../services/webhook-deliveries.js';
import { presentEndpoint } from '../../services/present-endpoint.js';
import { pauseEndpoint, resumeEndpoint } from '../../services/endpoint-pauses.js';

/** /api/webhooks/endpoints: where an account's content changes are delivered, managed with its bearer token. */
export const endpointRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireAccount);
  const security = [{ bearerAuth: [] }];
  const tags = ['endpoints'];
  const bodyLimit = deps.config.limits.authBodyBytes;

  app.post(
    '',
    {
      bodyLimit,
      schema: {
        operationId: 'createEndpoint',
        summary: 'Register a webhook endpoint; its signing secret is shown in this response only',
        tags,
        security,
        body: EndpointCreateRequestSchema,
        response: {
          201: json(EndpointCreatedSchema, 'Created: the endpoint and its secret, shown this once'),
          ...problems(409),
        },
      },
    },
    async (request, reply) => {
      const endpoint = await createEndpoint(deps, principalOf(request).accountId, request.body);
      return reply.code(201).send({ ...presentEndpoint(endpoint), secret: endpoint.secret });
    },
  );

  app.get(
    '',
    {
      schema: {
        operationId: 'listEndpoints',
        summary: "List the caller's webhook endpoints, newest first (never their secrets)",
        tags,
        security,
        response: { 200: json(EndpointListSchema, "The caller's endpoints") },
      },
    },
    async (request) => {
      const endpoints = await listEndpoints(deps, principalOf(request).accountId);
      return { items: endpoints.map(presentEndpoint) };
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        operationId: 'getEndpoint',
        summary: 'Read one webhook endpoint, with why and since when it is disabled',
        tags,
        security,
        params: EndpointIdParamsSchema,
        response: { 200: json(EndpointSchema, 'The endpoint'), ...problems(404) },
      },
    },
    async (request) =>
      presentEndpoint(await getEndpoint(deps, principalOf(request).accountId, request.params.id)),
  );

  app.patch(
    '/:id',
    {
      bodyLimit,
      schema: {
        operationId: 'updateEndpoint',
        summary:
          "Change a webhook endpoint's url, event types, description, filter, rate or enabled state",
        tags,
        security,
        params: EndpointIdParamsSchema,
        body: EndpointUpdateRequestSchema,
        response: { 200: json(EndpointSchema, 'The endpoint as it now is'), ...problems(404) },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      return presentEndpoint(
        await updateEndpoint(deps, accountId, request.params.id, request.body),
      );
    },
  );

  app.post(
    '/:id/secret',
    {
      schema: {
        operationId: 'rotateEndpointSecret',
        summary:
          "Give a webhook endpoint a new signing secret, shown in this response only; deliveries also carry the old one's signature until previousSecretExpiresAt",
        tags,
        security,
        params: EndpointIdParamsSchema,
        response: {
          200: json(EndpointSecretRotatedSchema, 'The new secret, shown this once'),
          ...problems(404),
        },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      const { endpoint, secret } = await rotateEndpointSecret(deps, accountId, request.params.id);
      return {
        secret,
        previousSecretExpiresAt: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
      };
    },
  );

  app.post(
    '/:id/pause',
    {
      schema: {
        operationId: 'pauseEndpoint',
        summary:
          "Hold a webhook endpoint's deliveries until it is resumed: none fails or is lost, and a ping still goes through",
        tags,
        security,
        params: EndpointIdParamsSchema,
        response: { 200: json(EndpointSchema, 'The endpoint, paused'), ...problems(404) },
      },
    },
    async (request) =>
      presentEndpoint(await pauseEndpoint(deps, principalOf(request).accountId, request.params.id)),
  );

  app.post(
    '/:id/resume',
    {
      schema: {
        operationId: 'resumeEndpoint',
        summary:
          'Resume a paused webhook endpoint (by its owner or the breaker): what waited is delivered, in order within each slug',
        tags,
        security,
        params: EndpointIdParamsSchema,
        response: { 200: json(EndpointSchema, 'The endpoint, delivering again'), ...problems(404) },
      },
    },
    async (request) =>
      presentEndpoint(
        await resumeEndpoint(deps, principalOf(request).accountId, request.params.id),
      ),
  );

  app.delete(
    '/:id',
    {
      schema: {
        operationId: 'deleteEndpoint',
        summary: 'Delete a webhook endpoint; nothing more is delivered to it',
        tags,
        security,
        params: EndpointIdParamsSchema,
        response: { 204: empty('Deleted'), ...problems(404) },
      },
    },
    async (request, reply) => {
      await deleteEndpoint(deps, principalOf(request).accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/:id/test',
    {
      schema: {
        operationId: 'pingEndpoint',
        summary:
          'Send the endpoint a signed `ping`, delivered and retried like any message; answers the delivery, queued',
        tags,
        security,
        params: EndpointIdParamsSchema,
        response: {
          202: json(DeliverySchema, 'Queued: the delivery, to follow in the deliveries list'),
          ...problems(404, 503),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      return reply.code(202).send(await pingEndpoint(deps, accountId, request.params.id));
    },
  );

  app.get(
    '/:id/deliveries',
    {
      schema: {
        operationId: 'listDeliveries',
        summary:
          "An endpoint's deliveries, newest first: status, attempts, the last answer's status, latency and start of its body",
        tags,
        security,
        params: EndpointIdParamsSchema,
        querystring: DeliveryListQuerySchema,
        response: { 200: json(DeliveryListSchema, 'A page of deliveries'), ...problems(404) },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      return listDeliveries(deps, accountId, request.params.id, request.query);
    },
  );

  app.post(
    '/:id/deliveries/:deliveryId/resend',
    {
      schema: {
        operationId: 'resendDelivery',
        summary:
          'Deliver a message to the endpoint again (the same webhook-id), with a fresh schedule of attempts',
        tags,
        security,
        params: DeliveryParamsSchema,
        response: {
          202: json(DeliverySchema, 'Queued: the new delivery'),
          ...problems(404, 503),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      const { id, deliveryId } = request.params;
      return reply.code(202).send(await resendDelivery(deps, accountId, id, deliveryId));
    },
  );
};
