import { batchRequestSchema } from '@ingest/events';
import { BatchResultSchema, type BatchItemResult } from '@ingest/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { HEADERS, json, problems } from '../../plugins/openapi-responses.js';
import { eventCountOf } from '../../publish/call-items.js';
import { publishCall, type Answer } from '../../publish/publish-call.js';
import { callOf, SIGNATURE_HEADERS } from './publish-request.js';
import type { contentQuotaHooks } from './quota-hooks.js';

type App = Parameters<FastifyPluginAsyncZod>[0];

/**
 * POST /api/webhooks/content/batch: many events in one call, each answered on its own.
 * A call with some bad events is not a failed call: it answers 200 with one result per
 * event, in order; only a call that is not a batch at all, or whose signature fails, is
 * refused as a whole (and recorded as one rejected event, like a single publish).
 */
export function batchRoute(
  app: App,
  deps: ApiDeps,
  quota: ReturnType<typeof contentQuotaHooks>,
): void {
  const { batchBodyBytes, batchMaxEvents } = deps.config.limits;
  app.post(
    '/batch',
    {
      bodyLimit: batchBodyBytes,
      // A batch holds the default places in admission control, not one per event: checking
      // up to a thousand events costs more than a publish, though their write is shared.
      onRequest: app.requireApiKey,
      preParsing: async (request, reply, payload) => {
        await quota.refuseWhenSpent(request, reply);
        return payload;
      },
      // The body schema documents the contract; the handler checks each event on its own,
      // so that one bad event is refused alone.
      validatorCompiler: () => (data: unknown) => ({ value: data }),
      schema: {
        operationId: 'publishEvents',
        summary: 'Publish many content events in one call',
        description: `Up to ${batchMaxEvents} events (CONTENT_BATCH_MAX_EVENTS) in ${batchBodyBytes} bytes (CONTENT_BATCH_LIMIT_BYTES). Each event is checked, recorded and queued as a single publish would be, and answered in \`results\`, in the order sent: its receipt's id, or its error with the status a single publish would get. Accepted events are recorded in one transaction, in the order sent, before the answer. An event with an \`idempotencyKey\` is recorded once across retries of the batch (the retry answers with the same id); in a signed call, an event without one is keyed by the call's webhook-id and its place. The account's rate limit counts events: those past it are answered RATE_LIMITED with retryAfterSeconds, and not recorded.`,
        tags: ['content'],
        security: [{ apiKeyAuth: [] }],
        headers: z.looseObject({
          ...SIGNATURE_HEADERS,
        }),
        body: batchRequestSchema(batchMaxEvents),
        response: {
          200: json(BatchResultSchema, 'One result per event, in the order sent', {
            ...HEADERS.rateLimit,
            'retry-after': {
              type: 'integer',
              description: 'When events past the rate limit were refused: seconds until it resets',
            },
          }),
          ...problems(400, 401, 403, 409, 413, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const taken = await quota.take(request, reply, eventCountOf(request.body, batchMaxEvents));
      if (taken === undefined) return reply; // refused: answered already
      const answers = await publishCall(
        deps,
        callOf(request, {
          batch: true,
          notifyOnFinish: false,
          granted: taken.granted,
          retryAfterSeconds: taken.resetSeconds,
        }),
      );
      const results = answers.map(resultOf);
      if (taken.granted < results.length) reply.header('retry-after', taken.resetSeconds);
      return reply.code(200).send({ results });
    },
  );
}

/** An event's answer as a batch shows it: its receipt's id, or its own error. */
function resultOf(answer: Answer): BatchItemResult {
  if ('accepted' in answer) {
    return answer.replayed ? { ...answer.accepted, replayed: true } : answer.accepted;
  }
  const { status, code, message, errors, extensions } = answer.refused;
  const { retryAfterSeconds } = extensions;
  const error = {
    status,
    code,
    message,
    ...(errors ? { errors } : {}),
    ...(typeof retryAfterSeconds === 'number' ? { retryAfterSeconds } : {}),
  };
  return answer.id === undefined ? { error } : { id: answer.id, error };
}
