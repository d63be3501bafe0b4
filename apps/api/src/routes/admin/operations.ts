import {
  BulkRetryRequestSchema,
  BulkRetryPreviewSchema,
  BulkRetryResultSchema,
  EventDetailSchema,
  EventLogStorageSchema,
  EventSearchQuerySchema,
  EventSearchResultSchema,
  PauseStateSchema,
  QueueStateSchema,
  ReceiptIdParamsSchema,
  RetryAcceptedSchema,
} from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';
import { eventDetail } from '../../services/admin/event-detail.js';
import { searchEvents } from '../../services/admin/event-search.js';
import { queueState } from '../../services/admin/queue-state.js';
import { previewRetry, replayEvent, replayMatching } from '../../services/admin/replay.js';
import { eventLogStorage } from '../../services/admin/storage.js';
import { operatorReader } from '../../services/readers.js';
import { json, problems } from '../../plugins/openapi-responses.js';
import { OPERATOR_DENIED, OPERATOR_SCHEMA } from './operator-schema.js';

/**
 * /api/admin: the queue's live state, the searchable event history and the event log's
 * storage, for operators.
 */
export const adminOperationRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onRequest', app.requireAdmin);
  const common = OPERATOR_SCHEMA;
  const denied = OPERATOR_DENIED;

  app.get(
    '/queue',
    {
      schema: {
        ...common,
        operationId: 'getQueueState',
        summary:
          'Queue state: events by status in the log, lag, jobs per state, workers, oldest waiting job',
        response: { 200: json(QueueStateSchema, 'The queue as Redis holds it now'), ...denied },
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
          operationId: pause ? 'pauseQueue' : 'resumeQueue',
          summary: pause ? 'Pause processing (every worker)' : 'Resume processing',
          response: {
            200: json(PauseStateSchema, pause ? 'Paused' : 'Resumed'),
            ...denied,
          },
        },
      },
      async (request) => {
        await deps.queues.pause(pause);
        request.log.warn(
          { operator: request.principal?.accountId },
          pause ? 'queue paused' : 'queue resumed',
        );
        return { paused: await deps.queues.isPaused() };
      },
    );
  }

  app.get(
    '/storage',
    {
      schema: {
        ...common,
        operationId: 'getEventLogStorage',
        summary: "The event log's partitions: sizes, states, retention, the next drop, held ones",
        response: {
          200: json(EventLogStorageSchema, "The event log's storage, read from the catalog"),
          ...denied,
        },
      },
    },
    async () => eventLogStorage(operatorReader(deps)),
  );

  app.get(
    '/events',
    {
      schema: {
        ...common,
        operationId: 'searchEvents',
        summary: 'Search events across accounts, newest first',
        querystring: EventSearchQuerySchema,
        response: {
          200: json(EventSearchResultSchema, 'A page of matching events; the first says how many'),
          ...denied,
        },
      },
    },
    async (request) => searchEvents(operatorReader(deps), request.query),
  );

  app.get(
    '/events/:id',
    {
      schema: {
        ...common,
        operationId: 'getEvent',
        summary: 'One event: payload, attempts with their errors, timings, request id',
        params: ReceiptIdParamsSchema,
        response: {
          200: json(EventDetailSchema, 'The event, its payload and its attempts'),
          ...denied,
          ...problems(404),
        },
      },
    },
    async (request) => eventDetail(deps, request.params.id),
  );

  app.post(
    '/events/:id/retry',
    {
      schema: {
        ...common,
        operationId: 'retryEvent',
        summary: 'Retry a failed event under its own identity',
        params: ReceiptIdParamsSchema,
        response: {
          202: json(RetryAcceptedSchema, 'Queued again, under the same id'),
          ...denied,
          ...problems(404, 409),
        },
      },
    },
    async (request, reply) => {
      await replayEvent(deps, request.params.id);
      return reply.code(202).send({ id: request.params.id, status: 'queued' as const });
    },
  );

  app.post(
    '/events/retry',
    {
      schema: {
        ...common,
        operationId: 'retryEvents',
        summary:
          'Retry the failed events matching the filters (up to 10,000 a call); failures of their own only if asked',
        body: BulkRetryRequestSchema,
        response: {
          200: json(BulkRetryResultSchema, 'How many were queued again, and left out'),
          ...denied,
        },
      },
    },
    async (request) => {
      const { status: _failedOnly, ...retry } = request.body;
      return replayMatching(deps, retry);
    },
  );

  app.post(
    '/events/retry/preview',
    {
      schema: {
        ...common,
        operationId: 'previewRetryEvents',
        summary:
          'What the same bulk retry would do now: matching failed events by code, and which it takes',
        body: BulkRetryRequestSchema,
        response: {
          200: json(BulkRetryPreviewSchema, 'The count it would retry, by error code'),
          ...denied,
        },
      },
    },
    async (request) => {
      const { status: _failedOnly, ...retry } = request.body;
      return previewRetry(deps, retry);
    },
  );
};
