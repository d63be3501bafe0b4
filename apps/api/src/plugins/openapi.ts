import fastifySwagger from '@fastify/swagger';
import scalarReference from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/**
 * The OpenAPI 3.1 document, generated from the zod schemas the routes declare (never
 * written by hand), at /openapi.json, and a reference page (Scalar) at /docs. It must be
 * registered before the routes: @fastify/swagger learns them as they are added.
 */
export const openapiPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Ingest: content ingestion API',
          version: '1.0.0',
          description:
            'Publishers register, log in for a bearer token, create scoped API keys (`sk-…`) and send content events to `POST /api/webhooks/content`. Every error is `application/problem+json` (RFC 9457) with a stable `code`; see the `Problem` schema for the list.',
        },
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            apiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' },
            adminSession: { type: 'apiKey', in: 'cookie', name: 'ingest_admin' },
          },
        },
        tags: [
          { name: 'auth', description: 'Accounts and bearer tokens' },
          { name: 'api-keys', description: 'Scoped API keys' },
          { name: 'content', description: 'Publishing events and reading their receipts' },
          { name: 'reads', description: 'Public reads of the content' },
          { name: 'admin', description: 'Operators only' },
          { name: 'operations', description: 'Health and metrics' },
          { name: 'errors', description: 'Problem types' },
        ],
      },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    await app.register(scalarReference, {
      routePrefix: '/docs',
      configuration: { url: '/openapi.json' },
    });
  },
  { name: 'openapi' },
);
