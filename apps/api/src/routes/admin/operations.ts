import {
  BulkRetryRequestSchema,
  BulkRetryResultSchema,
  EventDetailSchema,
  EventSearchQuerySchema,
  EventSearchResultSchema,
  PauseStateSchema,
  QueueStateSchema,
  ReceiptIdParamsSchema,
} from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { eventDetail } from '../../services/admin/event-detail.js';
import { searchEvents } from '../../services/admin/event-search.js';
import { queueState } from '../../services/admin/queue-state.js';
import { replayEvent, replayMatching } from '../../services/admin/replay.js';
import { problemResponses } from '../problem-responses.js';

/** /api/admin: the queue's live state and the searchable event history, for operators. */
export const adminOperationRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onRequest', app.requireAdmin);
  const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { adminSession: [] }];
  const common = { tags: ['admin'], security };
  const denied = problemResponses(401, 403);

  app.get(
    '/queue',
    {
      schema: {
        ...common,
        summary: 'Queue state: jobs per state, workers, oldest waiting job, last hour throughput',
        response: { 200: QueueStateSchema, ...denied },
      },
    },
    async () => queueState(deps),
  );

  for (const [action, pause] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    app.post(
      `/queue/${action}`,
      {
        schema: {
          ...common,
          summary: pause ? 'Pause processing (every worker)' : 'Resume processing',
          response: { 200: PauseStateSchema, ...denied },
        },
      },
      async (request) => {
        await (pause ? deps.queue.pause() : deps.queue.resume());
        request.log.warn(
          { operator: request.principal?.accountId },
          pause ? 'queue paused' : 'queue resumed',
        );
        return { paused: await deps.queue.isPaused() };
      },
    );
  }

  app.get(
    '/events',
    {
      schema: {
        ...common,
        summary: 'Search events across accounts, newest first',
        querystring: EventSearchQuerySchema,
        response: { 200: EventSearchResultSchema, ...problemResponses(400, 401, 403) },
      },
    },
    async (request) => searchEvents(deps, request.query),
  );

  app.get(
    '/events/:id',
    {
      schema: {
        ...common,
        summary: 'One event: payload, attempts with their errors, timings, request id',
        params: ReceiptIdParamsSchema,
        response: { 200: EventDetailSchema, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) => eventDetail(deps, request.params.id),
  );

  app.post(
    '/events/:id/retry',
    {
      schema: {
        ...common,
        summary: 'Retry a failed event under its own identity',
        params: ReceiptIdParamsSchema,
        response: {
          202: z.null().describe('Queued again'),
          ...problemResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      await replayEvent(deps, request.params.id);
      return reply.code(202).send(null);
    },
  );

  app.post(
    '/events/retry',
    {
      schema: {
        ...common,
        summary: 'Retry every failed event matching the filters (up to 10,000 a call)',
        body: BulkRetryRequestSchema,
        response: { 200: BulkRetryResultSchema, ...problemResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { status: _failedOnly, ...filters } = request.body;
      return { retried: await replayMatching(deps, filters) };
    },
  );
};
