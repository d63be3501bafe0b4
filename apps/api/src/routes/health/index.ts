import { checkReadiness } from '@ingest/observability';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { json } from '../../plugins/openapi-responses.js';

const ReadinessSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    checks: z.record(z.string(), z.enum(['ok', 'failed'])),
  })
  .meta({ id: 'Readiness' });

// Probes and scrapes must get through when the API refuses requests: that is when they matter.
const neverRefused = { admission: false as const };

/** /health/live, /health/ready and /metrics: for orchestrators and Prometheus. */
export const healthRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (app, { deps }) => {
  app.get(
    '/health/live',
    {
      config: neverRefused,
      schema: {
        operationId: 'checkLiveness',
        summary: 'Liveness: the process is up',
        tags: ['operations'],
        response: {
          200: json(z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' }), 'Up'),
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/health/ready',
    {
      config: neverRefused,
      schema: {
        operationId: 'checkReadiness',
        summary: 'Readiness: PostgreSQL and Redis answer within a second',
        tags: ['operations'],
        response: {
          200: json(ReadinessSchema, 'Ready: every check answered'),
          503: json(ReadinessSchema, 'Not ready: the failed checks are named'),
        },
      },
    },
    async (_request, reply) => {
      const { ready, checks } = await checkReadiness({
        postgres: () => deps.db.pool.query('SELECT 1'),
        redis: () => deps.redis.ping(),
      });
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
    },
  );

  app.get(
    '/metrics',
    {
      config: neverRefused,
      schema: {
        operationId: 'getMetrics',
        summary: 'Prometheus metrics (text exposition format)',
        tags: ['operations'],
        response: {
          200: {
            description: 'The Prometheus text exposition format',
            content: { 'text/plain': { schema: z.string() } },
            headers: {},
          },
        },
      },
    },
    async (_request, reply) =>
      reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
};
