import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Every body this API takes is JSON. Fastify also parses text/plain by default; removing
 * that parser makes such requests a clear 415 instead of a confusing validation error.
 */
export const jsonOnlyPlugin = fp(
  async (app: FastifyInstance) => {
    app.removeContentTypeParser('text/plain');
  },
  { name: 'json-only' },
);
