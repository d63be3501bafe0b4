import { createHash, timingSafeEqual } from 'node:crypto';
import { checkReadiness } from '@ingest/observability';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { unauthenticated } from '../../access/challenges.js';
import { json } from '../../plugins/openapi-responses.js';

const CheckSchema = z.enum(['ok', 'failed']);

const ReadinessSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    checks: z.object({ postgres: CheckSchema, redis: CheckSchema }),
  })
  .meta({ id: 'Readiness' });

// Probes and scrapes must get through when the API refuses requests: that is when they matter.
const neverRefused = { admission: false as const };

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * With METRICS_TOKEN set, a scrape must send it as a bearer token. Compared as digests
 * in constant time: how much of a guess matched must not show in the answer's timing.
 */
function metricsGuard(token: string | null) {
  if (token === null) return undefined;
  const expected = digest(token);
  return async (request: FastifyRequest) => {
    const sent = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
      throw unauthenticated('/metrics needs the METRICS_TOKEN', 'Bearer realm="metrics"');
    }
  };
}

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

  const guard = metricsGuard(deps.config.metrics.token);
  app.get(
    '/metrics',
    {
      config: neverRefused,
      ...(guard === undefined ? {} : { preHandler: guard }),
      schema: {
        operationId: 'getMetrics',
        summary: 'Prometheus metrics (text exposition format)',
        tags: ['operations'],
        security: guard === undefined ? [] : [{ metricsToken: [] }],
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
