import { ApiKeyCreateRequestSchema } from '@ingest/events';
import {
  ApiKeyCreatedSchema,
  ApiKeyIdParamsSchema,
  ApiKeyListSchema,
  ApiKeySummarySchema,
  ApiKeyUpdateRequestSchema,
  SigningSecretRotatedSchema,
} from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';
import { principalOf } from '../../plugins/authentication.js';
import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
  rotateSigningSecret,
  updateApiKey,
} from '../../services/api-keys.js';
import { empty, json, problems } from '../../plugins/openapi-responses.js';
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
        operationId: 'createApiKey',
        summary: 'Create a scoped API key; its secret is shown in this response only',
        tags: ['api-keys'],
        security,
        body: ApiKeyCreateRequestSchema,
        response: {
          201: json(ApiKeyCreatedSchema, 'Created: the key, shown this once'),
          ...problems(409),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      const { apiKey, key } = await createApiKey(deps, accountId, request.body);
      const { lastUsedAt: _lastUsed, revokedAt: _revoked, ...created } = presentApiKey(apiKey);
      return reply.code(201).send({ ...created, key, signingSecret: apiKey.signingSecret });
    },
  );

  app.get(
    '',
    {
      schema: {
        operationId: 'listApiKeys',
        summary: "List the caller's API keys, newest first (never their secrets)",
        tags: ['api-keys'],
        security,
        response: { 200: json(ApiKeyListSchema, "The caller's keys") },
      },
    },
    async (request) => {
      const keys = await listApiKeys(deps, principalOf(request).accountId);
      return { items: keys.map(presentApiKey) };
    },
  );

  app.patch(
    '/:id',
    {
      bodyLimit: deps.config.limits.authBodyBytes,
      schema: {
        operationId: 'updateApiKey',
        summary: 'Change whether calls with an API key must be signed',
        tags: ['api-keys'],
        security,
        params: ApiKeyIdParamsSchema,
        body: ApiKeyUpdateRequestSchema,
        response: { 200: json(ApiKeySummarySchema, 'The key as it now is'), ...problems(404) },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      const apiKey = await updateApiKey(deps, accountId, request.params.id, request.body);
      deps.apiKeys.forget(apiKey.keyHash);
      return presentApiKey(apiKey);
    },
  );

  app.post(
    '/:id/signing-secret',
    {
      schema: {
        operationId: 'rotateSigningSecret',
        summary:
          'Give an API key a new signing secret, shown in this response only; the old one verifies until previousSecretExpiresAt',
        tags: ['api-keys'],
        security,
        params: ApiKeyIdParamsSchema,
        response: {
          200: json(SigningSecretRotatedSchema, 'The new signing secret, shown this once'),
          ...problems(404),
        },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      const { apiKey, signingSecret } = await rotateSigningSecret(
        deps,
        accountId,
        request.params.id,
      );
      deps.apiKeys.forget(apiKey.keyHash);
      return {
        signingSecret,
        previousSecretExpiresAt: apiKey.previousSecretExpiresAt?.toISOString() ?? null,
      };
    },
  );

  app.delete(
    '/:id',
    {
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key; it stops working at once',
        tags: ['api-keys'],
        security,
        params: ApiKeyIdParamsSchema,
        response: { 204: empty('Revoked (also when it already was)'), ...problems(404) },
      },
    },
    async (request, reply) => {
      const keyHash = await revokeApiKey(deps, principalOf(request).accountId, request.params.id);
      deps.apiKeys.forget(keyHash);
      return reply.code(204).send(null);
    },
  );
};
