import { ContentEventRequestSchema, PUBLISH_ALL_SCOPE, READ_RECEIPTS_SCOPE } from '@ingest/events';
import {
  AcceptedEventSchema,
  ReceiptIdParamsSchema,
  ReceiptListQuerySchema,
  ReceiptListSchema,
  ReceiptSchema,
  receiptPath,
  MINUTE_MS,
} from '@ingest/contracts';
import { PUBLISH_COST } from '@ingest/fairness';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { requireScope } from '../../access/principal.js';
import { principalOf } from '../../plugins/authentication.js';
import { releaseAdmission } from '../../plugins/admission.js';
import { rateLimitHook } from '../../plugins/rate-limit.js';
import { awaitOutcome, throwUnlessSucceeded } from '../../publish/outcome.js';
import { preferredWaitSeconds } from '../../publish/prefer-wait.js';
import { publishCall, rejectedEventId, withReceipt } from '../../publish/publish-call.js';
import { getReceipt, listReceipts } from '../../services/receipts.js';
import { HEADERS, json, problem, problems } from '../../plugins/openapi-responses.js';
import { batchRoute } from './batch.js';
import { callOf, SIGNATURE_HEADERS } from './publish-request.js';
import { contentQuotaHooks } from './quota-hooks.js';

const READ_SCOPES = [READ_RECEIPTS_SCOPE, PUBLISH_ALL_SCOPE];

const PUBLISH_HEADERS = {
  ...HEADERS.location,
  ...HEADERS.rateLimit,
  'idempotent-replayed': {
    type: 'string',
    description: '`true` when this is the answer of an earlier call with the same Idempotency-Key',
  },
} as const;

const PREFERENCE_APPLIED = {
  'preference-applied': { type: 'string', description: 'wait=N, the wait that was applied' },
} as const;

// Under `Prefer: wait`, an event's failure is the answer: it comes with the headers of
// the acceptance it follows.
const OUTCOME_HEADERS = { ...PUBLISH_HEADERS, ...PREFERENCE_APPLIED };

/** /api/webhooks/content: publish an event (API key), and read its receipt. */
export const contentRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (app, { deps }) => {
  const quota = contentQuotaHooks(app, deps);
  const weighted = (perMinute: number) => (request: FastifyRequest) =>
    perMinute *
    (request.principal === null ? 1 : deps.shares.shareOf(request.principal.accountId).weight);
  // Limited by account, however it authenticates: a client polling in a tight loop would
  // otherwise take the API's CPU from everyone else, admission control or not.
  const receiptRateLimit = rateLimitHook(app, [
    {
      name: 'receipts-account',
      max: weighted(deps.config.limits.receiptsPerAccountPerMinute),
      windowMs: MINUTE_MS,
      key: (request) => request.principal?.accountId,
    },
  ]);
  const limitReceipts = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (!reply.sent) await receiptRateLimit(request, reply);
    return payload;
  };

  app.post(
    '',
    {
      bodyLimit: deps.config.limits.contentBodyBytes,
      config: { admission: PUBLISH_COST },
      onRequest: app.requireApiKey,
      // Checked after admission control, before the body is read, so that a request
      // refused there costs no round trip to Redis.
      preParsing: async (request, reply, payload) => {
        await quota.takeOne(request, reply);
        return payload;
      },
      // The body schema documents the contract; validation happens in the handler, after
      // the scope check, so that an invalid event can still be recorded as rejected.
      validatorCompiler: () => (data: unknown) => ({ value: data }),
      schema: {
        operationId: 'publishEvent',
        summary: 'Publish a content event',
        description:
          'Records the event and queues it; answers 202 once it is durably recorded. With `Prefer: wait=N` (N up to 30) the answer waits up to N seconds for the outcome: 200 with the receipt, or the failure as a problem.',
        tags: ['content'],
        security: [{ apiKeyAuth: [] }],
        // Documented here; read and checked by the handler (a malformed key is recorded as
        // a rejected event, like any other invalid part of a call).
        headers: z.looseObject({
          'idempotency-key': z.string().optional().meta({
            description:
              '1-255 printable ASCII characters: the same key with the same body answers with the first event again (Idempotent-Replayed: true); another body is 422',
          }),
          prefer: z.string().optional().meta({
            description: '`wait=N`: wait up to N seconds (at most 30) for the outcome',
          }),
          ...SIGNATURE_HEADERS,
        }),
        body: ContentEventRequestSchema,
        response: {
          202: json(AcceptedEventSchema, 'Recorded and queued: the event and its receipt', {
            ...PUBLISH_HEADERS,
          }),
          200: json(
            ReceiptSchema,
            'With Prefer: wait, the event succeeded in time: its receipt',
            OUTCOME_HEADERS,
          ),
          400: problem(400, OUTCOME_HEADERS),
          404: problem(404, OUTCOME_HEADERS),
          409: problem(409, OUTCOME_HEADERS),
          500: problem(500, OUTCOME_HEADERS),
          ...problems(403, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const waitSeconds = preferredWaitSeconds(
        request.headers.prefer,
        deps.config.limits.waitMaxSeconds,
      );
      const call = callOf(request, {
        batch: false,
        notifyOnFinish: waitSeconds > 0,
        granted: 1,
        retryAfterSeconds: 0,
      });
      const [answer] = await publishCall(deps, call).catch((error: unknown) => {
        request.eventId = rejectedEventId(error); // the access log names the rejected event
        throw error;
      });
      if (answer === undefined) throw new Error('a call of one event had no answer');
      if ('refused' in answer) {
        request.eventId = answer.id ?? null;
        throw withReceipt(answer.refused, answer.id);
      }
      const { accepted, replayed } = answer;
      request.eventId = accepted.id;
      reply.header('location', receiptPath(accepted.id));
      if (replayed) reply.header('idempotent-replayed', 'true');
      if (waitSeconds > 0) {
        // Waiting holds a timer, not a place in the API's queue.
        releaseAdmission(request, deps.admission);
        const receipt = await awaitOutcome(
          deps,
          call.principal.accountId,
          accepted.id,
          waitSeconds,
        );
        if (receipt !== undefined) {
          reply.header('preference-applied', `wait=${waitSeconds}`);
          throwUnlessSucceeded(receipt);
          return reply.code(200).send(receipt);
        }
      }
      return reply.code(202).send(accepted);
    },
  );

  batchRoute(app, deps, quota);

  app.get(
    '/:id',
    {
      onRequest: app.requireAccountOrKey,
      preParsing: limitReceipts,
      schema: {
        operationId: 'getReceipt',
        summary: "An event's receipt: its status, attempts, outcome",
        tags: ['content'],
        security: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
        params: ReceiptIdParamsSchema,
        response: {
          200: json(ReceiptSchema, "The event's receipt"),
          ...problems(403, 404, 410, 429),
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      requireScope(principal, READ_SCOPES);
      return getReceipt(deps, principal.accountId, request.params.id);
    },
  );

  app.get(
    '',
    {
      onRequest: app.requireAccountOrKey,
      preParsing: limitReceipts,
      schema: {
        operationId: 'listReceipts',
        summary: "The account's events, newest first",
        tags: ['content'],
        security: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
        querystring: ReceiptListQuerySchema,
        response: {
          200: json(ReceiptListSchema, 'A page of receipts'),
          ...problems(403, 429),
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      requireScope(principal, READ_SCOPES);
      return listReceipts(deps, principal.accountId, request.query);
    },
  );
};
