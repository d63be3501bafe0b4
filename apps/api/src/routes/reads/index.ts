import {
  ArticleListQuerySchema,
  ArticleListSchema,
  ArticleSchema,
  ArticleSlugParamsSchema,
  CategoryListSchema,
  HighlightListQuerySchema,
  HighlightListSchema,
} from '@ingest/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';
import { getArticle, listArticles } from '../../services/reads/articles.js';
import { listCategories } from '../../services/reads/categories.js';
import { listHighlights } from '../../services/reads/highlights.js';
import { json, problems } from '../../plugins/openapi-responses.js';
import { publicReader } from '../../services/readers.js';

/**
 * Whether a public read carries an API key or a bearer token, checked or not (the read is
 * public either way): such a caller may be reading its own writes.
 */
const sentCredentials = ({ headers }: FastifyRequest): boolean =>
  headers['x-api-key'] !== undefined || headers.authorization !== undefined;

/**
 * Public reads (no auth): articles, highlights, categories; from the read replica when
 * there is one and the caller sends no credentials (services/readers.ts).
 */
export const readRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (app, { deps }) => {
  app.get(
    '/articles',
    {
      schema: {
        operationId: 'listArticles',
        summary: 'Articles, newest first',
        description:
          'Filter by `category` (name, ignoring case) and `author` (handle); an unknown one gives an empty list.',
        tags: ['reads'],
        querystring: ArticleListQuerySchema,
        response: { 200: json(ArticleListSchema, 'A page of articles') },
      },
    },
    async (request) => listArticles(publicReader(deps, sentCredentials(request)), request.query),
  );

  app.get(
    '/articles/:slug',
    {
      schema: {
        operationId: 'getArticle',
        summary: 'One article, with its body',
        tags: ['reads'],
        params: ArticleSlugParamsSchema,
        response: { 200: json(ArticleSchema, 'The article'), ...problems(404) },
      },
    },
    async (request) =>
      getArticle(publicReader(deps, sentCredentials(request)), request.params.slug),
  );

  app.get(
    '/highlights',
    {
      schema: {
        operationId: 'listHighlights',
        summary: 'Highlights, newest first',
        tags: ['reads'],
        querystring: HighlightListQuerySchema,
        response: { 200: json(HighlightListSchema, 'A page of highlights') },
      },
    },
    async (request) => listHighlights(publicReader(deps, sentCredentials(request)), request.query),
  );

  app.get(
    '/categories',
    {
      schema: {
        operationId: 'listCategories',
        summary: 'Every category, with its article count',
        tags: ['reads'],
        response: { 200: json(CategoryListSchema, 'Every category, by name') },
      },
    },
    async (request) => listCategories(publicReader(deps, sentCredentials(request))),
  );
};
