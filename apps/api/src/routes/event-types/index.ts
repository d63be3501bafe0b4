import { buildEventCatalog, EventCatalogSchema } from '@ingest/events';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { empty, json } from '../../plugins/openapi-responses.js';
import { entityTagOf, matchesIfNoneMatch } from './entity-tag.js';

// The catalog changes only with a deployment (new contracts or content limits): a few
// minutes of staleness is harmless, and a cache revalidates with the ETag after that.
const CACHE_CONTROL = 'public, max-age=300';

const CACHING_HEADERS = {
  etag: { type: 'string', description: "The catalog's entity tag: send it as If-None-Match" },
  'cache-control': { type: 'string', description: `\`${CACHE_CONTROL}\`` },
} as const;

/** /api/event-types: the catalog of what may be sent and what will be received (public). */
export const eventTypeRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (app, { deps }) => {
  // Built once: it depends on the contracts and the configuration alone.
  const catalog = buildEventCatalog(deps.config.content);
  const entityTag = entityTagOf(JSON.stringify(catalog));

  app.get(
    '',
    {
      schema: {
        operationId: 'listEventTypes',
        summary: 'The catalog of event types',
        description:
          "Every event a publisher may send (with the scopes that allow it and the JSON Schema of its `data`, under this deployment's content limits) and every message an endpoint may receive (with its JSON Schema), each with a version. Generated from the schemas the service validates with.",
        tags: ['event-types'],
        headers: z.looseObject({
          'if-none-match': z.string().optional().meta({
            description: 'An ETag from an earlier answer: 304 when the catalog is still the same',
          }),
        }),
        response: {
          200: json(EventCatalogSchema, 'The catalog', CACHING_HEADERS),
          304: empty(
            'Not modified: the catalog is the one the If-None-Match names',
            CACHING_HEADERS,
          ),
        },
      },
    },
    async (request, reply) => {
      reply.header('etag', entityTag).header('cache-control', CACHE_CONTROL);
      if (matchesIfNoneMatch(request.headers['if-none-match'], entityTag)) {
        return reply.code(304).send();
      }
      return catalog;
    },
  );
};
