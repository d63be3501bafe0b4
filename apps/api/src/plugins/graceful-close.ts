import { AppError } from '@ingest/contracts';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const RETRY_AFTER_SECONDS = 1;

/**
 * On shutdown, requests in flight finish, but a keep-alive connection would then stay
 * open (and the process alive) until the client hangs up or its keep-alive times out.
 * Once closing has begun, every response says `Connection: close`, so each connection
 * ends with the request it is serving; a request that still arrives on such a connection
 * is refused with 503 UNAVAILABLE in the problem shape (Fastify's own `return503OnClosing`
 * answer is bare JSON, so it is turned off in app.ts), for the client to send elsewhere.
 */
export const gracefulClosePlugin = fp(
  async (app: FastifyInstance) => {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onRequest', async () => {
      if (!closing) return;
      throw new AppError('UNAVAILABLE', 'This instance is shutting down; retry the request', {
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      });
    });
    app.addHook('onSend', async (_request, reply) => {
      if (closing) reply.header('connection', 'close');
    });
  },
  { name: 'graceful-close' },
);
