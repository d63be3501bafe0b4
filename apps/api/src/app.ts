import fastifyCookie from '@fastify/cookie';
import Fastify from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { ApiDeps } from './deps.js';
import { admissionPlugin } from './plugins/admission.js';
import { earlyRefusalServer } from './plugins/early-refusal.js';
import { authenticationPlugin } from './plugins/authentication.js';
import { dashboardPlugin } from './plugins/dashboard.js';
import { errorHandlerPlugin } from './plugins/error-handler.js';
import { clientErrorHandler, frameworkErrors } from './plugins/framework-errors.js';
import { gracefulClosePlugin } from './plugins/graceful-close.js';
import { hostHeaderPlugin } from './plugins/host-header.js';
import { jsonOnlyPlugin } from './plugins/json-only.js';
import { metricsPlugin } from './plugins/metrics.js';
import { openapiPlugin } from './plugins/openapi.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { requestIdFrom, requestIdPlugin } from './plugins/request-id.js';
import { strictQueryPlugin } from './plugins/strict-query.js';
import { tracingPlugin } from './plugins/tracing.js';
import { adminRoutes } from './routes/admin/index.js';
import { apiKeyRoutes } from './routes/api-keys/index.js';
import { endpointRoutes } from './routes/endpoints/index.js';
import { eventTypeRoutes } from './routes/event-types/index.js';
import { authRoutes } from './routes/auth/index.js';
import { contentRoutes } from './routes/content/index.js';
import { healthRoutes } from './routes/health/index.js';
import { readRoutes } from './routes/reads/index.js';
import { problemRoutes } from './routes/problems/index.js';
import { RequestLogController } from './request-logging.js';

/**
 * The API as a Fastify instance, ready for `listen()` or `inject()`. It opens no
 * connections of its own: everything it talks to arrives in `deps`.
 */
export async function buildApp(deps: ApiDeps) {
  const app = Fastify({
    loggerInstance: deps.logger,
    genReqId: requestIdFrom,
    logController: new RequestLogController(),
    trustProxy: deps.config.http.trustProxy,
    // Slugs may be 120 characters; Fastify's default would answer a longer path
    // parameter with a bare 414 before validation could say what is wrong.
    routerOptions: { maxParamLength: 256 },
    // What Fastify and Node's HTTP parser answer before any route: the problem document.
    frameworkErrors,
    clientErrorHandler,
    // Requests that arrive while closing get our 503 problem (plugins/graceful-close.ts).
    return503OnClosing: false,
    // And a missing Host our 400 problem (plugins/host-header.ts), not Node's bare one.
    http: { requireHostHeader: false },
    // Requests of an account that admission control refuses now are answered before Fastify.
    serverFactory: earlyRefusalServer(deps),
  }).withTypeProvider<ZodTypeProvider>();
  app.decorateRequest('eventId', null);
  // Every route as registered, so that a test can hold the OpenAPI document to all of them.
  const routeTable: Array<{ method: string; url: string; hidden: boolean }> = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      routeTable.push({
        method,
        url: route.url,
        hidden: route.schema?.hide === true,
      });
    }
  });
  app.decorate('routeTable', routeTable);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Cross-cutting behaviour first, so that it covers every route registered after it.
  if (deps.config.tracing.enabled) await app.register(tracingPlugin);
  await app.register(requestIdPlugin);
  await app.register(gracefulClosePlugin);
  await app.register(errorHandlerPlugin);
  await app.register(hostHeaderPlugin);
  await app.register(metricsPlugin, { metrics: deps.metrics });
  await app.register(admissionPlugin, {
    admission: deps.admission,
    shares: deps.shares,
    refusals: deps.refusals,
  });
  await app.register(jsonOnlyPlugin);
  await app.register(fastifyCookie);
  await app.register(rateLimitPlugin, {
    redis: deps.redis,
    keyPrefix: deps.config.redis.keyPrefix,
  });
  await app.register(authenticationPlugin, { deps });

  await app.register(strictQueryPlugin);
  await app.register(openapiPlugin, { metricsToken: deps.config.metrics.token !== null });
  await app.register(authRoutes, { prefix: '/api/auth', deps });
  await app.register(apiKeyRoutes, { prefix: '/api/webhooks/api-keys', deps });
  await app.register(endpointRoutes, { prefix: '/api/webhooks/endpoints', deps });
  await app.register(contentRoutes, { prefix: '/api/webhooks/content', deps });
  await app.register(eventTypeRoutes, { prefix: '/api/event-types', deps });
  await app.register(readRoutes, { prefix: '/api', deps });
  await app.register(adminRoutes, { prefix: '/api/admin', deps });
  await app.register(dashboardPlugin, { deps });
  await app.register(problemRoutes, { prefix: '/problems' });
  await app.register(healthRoutes, { deps });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: Array<{ method: string; url: string; hidden: boolean }>;
  }
}
