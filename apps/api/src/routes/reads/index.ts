import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';

/** Public reads (no auth): articles, highlights, categories. */
export const readRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async () => {};
