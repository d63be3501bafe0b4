import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { AppError } from '@ingest/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiDeps } from '../../deps.js';

export const BULL_BOARD_PATH = '/dashboard/queues';
const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * bull-board at /dashboard/queues, for operators only. It is encapsulated (not wrapped
 * in fastify-plugin) so that its hook and its error handler stay inside it.
 */
export async function bullBoardPlugin(app: FastifyInstance, { deps }: { deps: ApiDeps }) {
  // bull-board sets its own error handler, which would render a refusal as a 500 with
  // the error's message: refusals are answered here, by the API's own handler, instead.
  const renderError = app.errorHandler;
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      await app.requireAdmin(request);
      // Read-only (see below), so nothing but reads is let in: a write would only reach
      // bull-board's own handlers, which answer a body they cannot parse with a 500.
      if (!READ_METHODS.has(request.method)) {
        throw new AppError('METHOD_NOT_ALLOWED', 'The job board is read-only', {
          headers: { allow: [...READ_METHODS].join(', ') },
        });
      }
    } catch (error) {
      return renderError.call(app, error, request, reply);
    }
  });

  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    // Read-only: retrying or removing a job there would bypass the event's own status in
    // PostgreSQL (a retried job finds its event failed and does nothing). Operators retry
    // and pause from the dashboard, which goes through the operator API.
    queues: deps.queues.all.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Ingest jobs' } },
  });
  await app.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
}
