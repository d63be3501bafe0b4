import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * On shutdown, requests in flight finish, but a keep-alive connection would then stay
 * open (and the process alive) until the client hangs up or its keep-alive times out.
 * Once closing has begun, every response says `Connection: close`, so each connection
 * ends with the request it is serving.
 */
export const gracefulClosePlugin = fp(
  async (app: FastifyInstance) => {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onSend', async (_request, reply) => {
      if (closing) reply.header('connection', 'close');
    });
  },
  { name: 'graceful-close' },
);
