import { AppError } from '@ingest/contracts';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * HTTP/1.1 requests must name their host (RFC 9112, section 3.2). Node refuses one that
 * does not by itself, but with a bare 400 (no body, no request id): its check is turned
 * off in app.ts so that the refusal is this one, in the problem shape.
 */
export const hostHeaderPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', async (request) => {
      if (request.raw.httpVersion !== '1.1' || request.headers.host !== undefined) return;
      throw new AppError('VALIDATION_FAILED', 'An HTTP/1.1 request must carry a Host header', {
        errors: [{ path: 'headers.host', message: 'is required in HTTP/1.1' }],
      });
    });
  },
  { name: 'host-header' },
);
