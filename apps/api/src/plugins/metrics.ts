import type { FastifyInstance } from 'fastify';
import fastifyMetricsModule from 'fastify-metrics';
import fp from 'fastify-plugin';
import type { ApiMetrics } from '../metrics.js';

const UNMEASURED = ['/metrics', '/health/live', '/health/ready'];

// fastify-metrics is CommonJS with its plugin on `exports.default`, which Node's ESM
// import hands over as a property of the default export.
const fastifyMetrics = fastifyMetricsModule.default;

/**
 * `ingest_http_request_duration_seconds{method,route,status_code}` (its `_count` is the
 * request count) by fastify-metrics, into the API's own registry, which GET /metrics
 * serves with the ingestion series and Node's process metrics.
 */
export const metricsPlugin = fp(
  async (app: FastifyInstance, { metrics }: { metrics: ApiMetrics }) => {
    await app.register(fastifyMetrics, {
      endpoint: null,
      defaultMetrics: { enabled: false },
      routeMetrics: {
        enabled: { histogram: true, summary: false },
        routeBlacklist: UNMEASURED,
        overrides: {
          histogram: {
            name: 'ingest_http_request_duration_seconds',
            registers: [metrics.registry],
          },
          // Never exposed, but fastify-metrics creates it anyway: keep it out of
          // prom-client's global registry, where a second app in the process would clash.
          summary: { name: 'ingest_http_request_summary_seconds', registers: [metrics.registry] },
        },
      },
    });
  },
  { name: 'metrics' },
);
