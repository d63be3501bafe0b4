import fastifySwagger from '@fastify/swagger';
import scalarReference from '@scalar/fastify-api-reference';
import { PROBLEM_CONTENT_TYPE } from '@ingest/contracts';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { HEADERS, problemHeaders, type ResponseHeaders } from './openapi-responses.js';
import { outgoingWebhooks } from './openapi-webhooks.js';

type Transform = typeof jsonSchemaTransform;
type TransformInput = Parameters<Transform>[0];
type JsonObject = Record<string, unknown>;

const REQUEST_ID_HEADER = {
  'x-request-id': {
    type: 'string',
    description:
      'The request id, also in the problem document of an error: quote it to an operator. A valid one the caller sent (1-128 of A-Z a-z 0-9 . _ : -) is kept',
  },
} as const;

const problemRef = (status: number, description: string) => ({
  description,
  headers: problemHeaders(status),
  content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** What every operation can answer, whatever its route declares. */
function sharedResponses(input: TransformInput): Record<string, JsonObject> {
  const { route, schema } = input;
  const method = [route.method].flat()[0] ?? 'GET';
  const secured = Array.isArray(schema?.security) && schema.security.length > 0;
  const admitted = (route.config as { admission?: unknown } | undefined)?.admission !== false;
  const hasPathParameters = route.url.includes(':');
  return {
    400: problemRef(
      400,
      'Error: VALIDATION_FAILED (a parameter, unknown query parameters included), INVALID_JSON',
    ),
    ...(secured ? { 401: problemRef(401, 'Error: UNAUTHENTICATED') } : {}),
    ...(['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)
      ? {
          413: problemRef(413, 'Error: PAYLOAD_TOO_LARGE'),
          415: problemRef(
            415,
            'Error: UNSUPPORTED_MEDIA_TYPE (not application/json, or not UTF-8)',
          ),
        }
      : {}),
    // Said of the path rather than of this method: another method sent to the same path.
    405: problemRef(405, 'Error: METHOD_NOT_ALLOWED, for a method this path does not take'),
    ...(hasPathParameters
      ? { 414: problemRef(414, 'Error: URI_TOO_LONG (a path parameter past 256 characters)') }
      : {}),
    500: problemRef(500, 'Error: INTERNAL_ERROR'),
    // Probes and scrapes never meet admission control (health routes); everything else may.
    ...(admitted
      ? {
          429: problemRef(
            429,
            'Error: RATE_LIMITED (admission control: the account or address holds more than its share of a full API, and its own queue stood too long; or a rate limit)',
          ),
          503: problemRef(
            503,
            'Error: UNAVAILABLE (admission control: the API full for everyone; or the database away)',
          ),
        }
      : {}),
  };
}

interface Declared {
  description?: string;
  content?: JsonObject;
  headers?: ResponseHeaders;
}

/**
 * fastify-type-provider-zod turns the route's zod schemas into JSON Schema but drops what
 * a response declares besides its body: its headers, and a body-less response (a 204)
 * would come out as an empty media type. Both are put back here; then come the responses
 * and headers every operation shares, so that no route can forget one.
 */
const transform: Transform = (input) => {
  const output = jsonSchemaTransform(input);
  const { schema } = output;
  if (schema.hide === true) return output;
  const declaredResponses = (input.schema?.response ?? {}) as Record<string, Declared>;
  const responses = { ...(schema.response as Record<string, JsonObject> | undefined) };
  for (const [status, declared] of Object.entries(declaredResponses)) {
    const headers = declared.headers ?? {};
    if (declared.content !== undefined && Object.keys(declared.content).length === 0) {
      responses[status] = { type: 'null', description: declared.description, headers };
    } else if (responses[status] !== undefined) {
      responses[status] = { ...responses[status], headers };
    }
  }
  // A rate-limited operation (one that declares 429 itself) counts every request, so
  // every answer after the count carries the RateLimit-* headers, errors included. The
  // 429 of admission control, which every operation shares, carries them on itself only.
  const counted = '429' in responses ? HEADERS.rateLimit : {};
  for (const [status, shared] of Object.entries(sharedResponses(input))) {
    responses[status] ??= shared;
  }
  for (const response of Object.values(responses)) {
    response.headers = {
      ...counted,
      ...(response.headers as JsonObject | undefined),
      ...REQUEST_ID_HEADER,
    };
  }
  const headers = (schema.headers as JsonObject | undefined) ?? { type: 'object', properties: {} };
  return {
    ...output,
    schema: {
      ...schema,
      security: schema.security ?? [],
      headers: {
        ...headers,
        properties: { ...(headers.properties as JsonObject | undefined), ...REQUEST_ID_HEADER },
      },
      response: responses,
    },
  };
};

/**
 * The zod registry contributes every named schema twice (as read, `FooInput`, and as
 * written), whatever the routes use: the document keeps those its operations reach.
 */
type OpenApiDocument = ReturnType<typeof jsonSchemaTransformObject>;

function withoutUnreachableSchemas(document: OpenApiDocument): OpenApiDocument {
  const schemas = 'components' in document ? document.components?.schemas : undefined;
  if (schemas === undefined) return document;
  const reached = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const name =
          key === '$ref' && typeof item === 'string'
            ? /^#\/components\/schemas\/(.+)$/.exec(item)?.[1]
            : undefined;
        if (name !== undefined && !reached.has(name)) {
          reached.add(name);
          visit(schemas[name]);
        } else if (item !== schemas) visit(item);
      }
    }
  };
  visit(document);
  // The document is this call's own (jsonSchemaTransformObject builds it afresh).
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
  return document;
}

/**
 * zod leaves a schema's `examples` out of its parsed (`FooInput`) variant when the schema
 * transforms (a handle lower-cased, duplicate scopes folded): they are outputs of the
 * transforms. A request's examples are inputs the transforms leave unchanged, so the
 * variant a request body refers to shows them too (test/openapi-examples.test.ts sends
 * each one).
 */
function withRequestExamples(document: OpenApiDocument): OpenApiDocument {
  const schemas = 'components' in document ? document.components?.schemas : undefined;
  for (const [name, schema] of Object.entries(schemas ?? {})) {
    const examples = (schemas?.[name.replace(/Input$/, '')] as JsonObject | undefined)?.examples;
    if (name.endsWith('Input') && isObject(schema) && !('examples' in schema) && examples) {
      schema.examples = examples;
    }
  }
  return document;
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every response carries x-request-id: the document says so (`required: true`), which
 * @fastify/swagger cannot express from a route's header schema, so it is set here.
 */
function withRequestIdRequired(document: OpenApiDocument): OpenApiDocument {
  const paths = 'paths' in document && isObject(document.paths) ? document.paths : {};
  for (const operations of Object.values(paths).filter(isObject)) {
    for (const operation of Object.values(operations).filter(isObject)) {
      const responses = isObject(operation.responses) ? operation.responses : {};
      for (const response of Object.values(responses).filter(isObject)) {
        const header = isObject(response.headers) ? response.headers['x-request-id'] : undefined;
        if (isObject(header)) header.required = true;
      }
    }
  }
  return document;
}

/**
 * The OpenAPI 3.1 document, generated from the zod schemas the routes declare (never
 * written by hand), at /openapi.json, and a reference page (Scalar) at /docs. It must be
 * registered before the routes: @fastify/swagger learns them as they are added.
 */
export const openapiPlugin = fp(
  // metricsToken: whether METRICS_TOKEN is set, and so whether /metrics is secured by it.
  async (app: FastifyInstance, options: { metricsToken: boolean }) => {
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Ingest: content ingestion API',
          version: '1.0.0',
          summary: 'Publish content events; read what became of them',
          license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
          description:
            'Publishers register, log in for a bearer token, create scoped API keys (`sk-…`) and send content events to `POST /api/webhooks/content`. Every error is `application/problem+json` (RFC 9457) with a stable `code`, a `message` and the `requestId`; see the `Problem` schema for the list. A method a path does not have is answered 405 `METHOD_NOT_ALLOWED` (a problem) with an `Allow` header naming the methods the path has. Before any operation, the HTTP parser may refuse a request with 431 `HEADERS_TOO_LARGE` or 408 `REQUEST_TIMEOUT`, also as problems. Bodies are JSON in UTF-8: another charset is 415, bytes that are not UTF-8 are 400 `INVALID_JSON`. Lengths of strings count Unicode code points, as JSON Schema does. Unknown query parameters are refused (400) on every operation. Where an operation takes a bearer token or an API key and both are sent, the one that authenticates is used. A state-changing operator request authenticated by the dashboard cookie must come from this origin (`Origin` or `Sec-Fetch-Site`), else 403. What may be sent and what will be received: `GET /api/event-types` lists every event with the scopes that allow it and the JSON Schema of its `data`, and every outgoing message with its JSON Schema, each with a version; the outgoing messages are also under `webhooks` here.',
        },
        externalDocs: {
          description: 'The catalog of event types, with their JSON Schemas and versions',
          url: '/api/event-types',
        },
        servers: [{ url: '/', description: 'This server' }],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            apiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' },
            adminSession: { type: 'apiKey', in: 'cookie', name: 'ingest_admin' },
            ...(options.metricsToken
              ? {
                  metricsToken: {
                    type: 'http',
                    scheme: 'bearer',
                    description: 'METRICS_TOKEN, which the operator set (GET /metrics only)',
                  },
                }
              : {}),
          },
        },
        tags: [
          { name: 'auth', description: 'Accounts and bearer tokens' },
          { name: 'api-keys', description: 'Scoped API keys' },
          {
            name: 'endpoints',
            description:
              'Outgoing webhooks: where content changes are delivered (Standard Webhooks)',
          },
          { name: 'content', description: 'Publishing events and reading their receipts' },
          {
            name: 'event-types',
            description: 'What a publisher may send and what an endpoint will receive',
          },
          { name: 'reads', description: 'Public reads of the content' },
          { name: 'admin', description: 'Operators only' },
          { name: 'operations', description: 'Health and metrics' },
          { name: 'errors', description: 'Problem types' },
        ],
        webhooks: outgoingWebhooks(),
      },
      transform,
      transformObject: (input) =>
        withRequestIdRequired(
          withoutUnreachableSchemas(withRequestExamples(jsonSchemaTransformObject(input))),
        ),
    });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    // Self-hosted: nothing on the page may reach outside this server. Scalar's cloud
    // features (its AI agent, MCP generation, the developer tools' deploy), its telemetry
    // and its web fonts (from fonts.scalar.com) are off; the script is served from here.
    await app.register(scalarReference, {
      routePrefix: '/docs',
      configuration: {
        url: '/openapi.json',
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: 'never',
        telemetry: false,
        withDefaultFonts: false,
      },
    });
  },
  { name: 'openapi' },
);
