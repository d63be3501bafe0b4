import { checkReadiness } from '@ingest/observability';
import Fastify, { type FastifyInstance } from 'fastify';
import type { WorkerDeps } from './deps.js';

/**
 * The worker's own small HTTP port: /health/live, /health/ready (PostgreSQL and Redis
 * answer within a second) and /metrics, for orchestrators and Prometheus. Request
 * logging is off: probes and scrapes every few seconds would drown the job logs.
 */
export function buildWorkerHttpServer(
  deps: WorkerDeps,
  redisPing: () => Promise<unknown>,
): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/health/live', async () => ({ status: 'ok' }));
  app.get('/health/ready', async (_request, reply) => {
    const { ready, checks } = await checkReadiness({
      postgres: () => deps.db.pool.query('SELECT 1'),
      redis: redisPing,
    });
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
  });
  app.get('/metrics', async (_request, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
  return app;
}
