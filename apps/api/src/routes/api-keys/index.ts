import {
  ApiKeyCreatedSchema,
  ApiKeyCreateRequestSchema,
  ApiKeyIdParamsSchema,
  ApiKeyListSchema,
} from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { principalOf } from '../../plugins/authentication.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../services/api-keys.js';
import { problemResponses } from '../problem-responses.js';
import { presentApiKey } from './present-api-key.js';

/** /api/webhooks/api-keys: a publisher's scoped keys, managed with its bearer token. */
export const apiKeyRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireAccount);
  const security = [{ bearerAuth: [] }];

  app.post(
    '',
    {
      bodyLimit: deps.config.limits.authBodyBytes,
      schema: {
        summary: 'Create a scoped API key; its secret is shown in this response only',
        tags: ['api-keys'],
        security,
        body: ApiKeyCreateRequestSchema,
        response: { 201: ApiKeyCreatedSchema, ...problemResponses(400, 401, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      const { apiKey, key } = await createApiKey(deps, accountId, request.body);
      const { lastUsedAt: _lastUsed, revokedAt: _revoked, ...created } = presentApiKey(apiKey);
      return reply.code(201).send({ ...created, key });
    },
  );

  app.get(
    '',
    {
      schema: {
        summary: "List the caller's API keys, newest first (never their secrets)",
        tags: ['api-keys'],
        security,
        response: { 200: ApiKeyListSchema, ...problemResponses(401) },
      },
    },
    async (request) => {
      const keys = await listApiKeys(deps, principalOf(request).accountId);
      return { items: keys.map(presentApiKey) };
    },
  );

  app.delete(
    '/:id',
    {
      schema: {
        summary: 'Revoke an API key; it stops working at once',
        tags: ['api-keys'],
        security,
        params: ApiKeyIdParamsSchema,
        response: { 204: z.null().describe('Revoked'), ...problemResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const keyHash = await revokeApiKey(deps, principalOf(request).accountId, request.params.id);
      app.apiKeys.forget(keyHash);
      return reply.code(204).send(null);
    },
  );
};
