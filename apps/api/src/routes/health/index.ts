import { checkReadiness } from '@ingest/observability';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';

const ReadinessSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    checks: z.record(z.string(), z.enum(['ok', 'failed'])),
  })
  .meta({ id: 'Readiness' });

// Probes and scrapes must get through when the API sheds load: that is when they matter.
const notShed = { pressureHandler: () => undefined };

/** /health/live, /health/ready and /metrics: for orchestrators and Prometheus. */
export const healthRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (app, { deps }) => {
  app.get(
    '/health/live',
    {
      config: notShed,
      schema: {
        summary: 'Liveness: the process is up',
        tags: ['operations'],
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/health/ready',
    {
      config: notShed,
      schema: {
        summary: 'Readiness: PostgreSQL and Redis answer within a second',
        tags: ['operations'],
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
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
      config: notShed,
      schema: {
        summary: 'Prometheus metrics (text exposition format)',
        tags: ['operations'],
        produces: ['text/plain'],
        response: { 200: z.string().describe('Prometheus text format') },
      },
    },
    async (_request, reply) =>
      reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
};
