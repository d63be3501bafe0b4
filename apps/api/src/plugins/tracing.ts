import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** Probes and scrapes every few seconds would fill the traces with nothing to see. */
const UNTRACED = /^\/(health\/|metrics$)/;

/**
 * A server span for each request, a child of the caller's `traceparent` when it sends
 * one, active while the request is handled: the spans of the event it accepts are its
 * children. Registered before every other plugin so that it covers all routes. Spans for
 * each lifecycle hook are left out: a dozen hooks a request, none of them where time goes.
 */
export const tracingPlugin = fp(
  async (app: FastifyInstance) => {
    const instrumentation = new FastifyOtelInstrumentation({
      instrumentHooks: false,
      ignorePaths: (route) => UNTRACED.test(route.url),
    });
    await app.register(instrumentation.plugin());
  },
  { name: 'tracing' },
);
