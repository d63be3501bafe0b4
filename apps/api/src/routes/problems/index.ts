import { ERROR_CODES, problemTypeOf, type ErrorCode } from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { json, problems } from '../../plugins/openapi-responses.js';

const PROBLEM_TYPES = new Map(
  (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => [
    problemTypeOf(code).split('/').pop()!,
    code,
  ]),
);

/** /problems/:type: what a problem document's `type` URI points at. */
export const problemRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:type',
    {
      schema: {
        operationId: 'getProblemType',
        summary: 'Describe an error type',
        tags: ['errors'],
        params: z.object({ type: z.string().max(64) }),
        response: {
          200: json(
            z
              .object({
                type: z.string(),
                code: z.string(),
                status: z.number(),
                title: z.string(),
              })
              .meta({ id: 'ProblemType' }),
            'The error type: its code, status and title',
          ),
          ...problems(404),
        },
      },
    },
    async (request, reply) => {
      const code = PROBLEM_TYPES.get(request.params.type);
      if (code === undefined) return reply.callNotFound();
      const { status, title } = ERROR_CODES[code];
      return { type: problemTypeOf(code), code, status, title };
    },
  );
};
