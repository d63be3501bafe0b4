import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';

/**
 * Every documented route refuses query parameters it does not know, as the list routes
 * do: a mistyped filter must not quietly answer as if it were absent. Routes that take
 * none get an empty strict schema, so `/api/categories?foo=1` is the same 400 as
 * `/api/articles?foo=1`. Hidden routes (the dashboard's pages) and routes without a schema
 * (bull-board's) keep their own rules.
 */
export const strictQueryPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      const { schema } = route;
      // No schema at all: not one of ours (bull-board's), and not in the document.
      if (schema === undefined || schema.hide === true || schema.querystring !== undefined) return;
      route.schema = { ...schema, querystring: z.strictObject({}) };
    });
  },
  { name: 'strict-query' },
);
