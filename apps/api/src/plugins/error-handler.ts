import { isAppError, type ErrorCode, type FieldProblem } from '@ingest/contracts';
import { databaseFailureOf, type DatabaseFailure } from '@ingest/db';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { sendProblem } from './problem.js';

const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
const DATABASE_FAILURE_DETAIL: Record<DatabaseFailure, string> = {
  unreachable: 'The service cannot reach its database right now',
  timeout: 'The database did not answer in time',
  conflict: 'The request collided with a concurrent change to the same rows',
};
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Fastify's own errors that are the client's fault, and the code each one becomes. */
const FASTIFY_ERROR_CODES: Record<string, { code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    detail: 'Send the body as JSON with Content-Type: application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'PAYLOAD_TOO_LARGE',
    detail: 'The body is larger than this endpoint accepts',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'VALIDATION_FAILED',
    detail: 'Content-Length does not match the body',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'INVALID_JSON',
    detail: 'The body is empty; send a JSON object',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'INVALID_JSON',
    // Fastify's parser also refuses the keys __proto__ and constructor.prototype, which
    // would otherwise poison object prototypes: say so, since such a body is valid JSON.
    detail: 'The body is not valid JSON, or uses a reserved key (__proto__, constructor.prototype)',
  },
};

const BODY_ERROR_CODES = new Set<string>([
  'INVALID_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
]);

/** Whether the error is about the body (its media type, size or syntax), ours or Fastify's. */
function isBodyError(error: FastifyError): boolean {
  if (isAppError(error)) return BODY_ERROR_CODES.has(error.code);
  return typeof error.code === 'string' && error.code.startsWith('FST_ERR_CTP_');
}

/** `/data/body/3` in the body becomes `data.body.3`; other parts are named: `query.limit`. */
function fieldPath(instancePath: string, context: string | undefined): string {
  const path = instancePath.split('/').filter(Boolean).join('.');
  if (context === undefined || context === 'body') return path;
  const part = context === 'querystring' ? 'query' : context;
  return path === '' ? part : `${part}.${path}`;
}

/** One entry a field: the first problem found with it is the one worth fixing first. */
export function onePerField(problems: FieldProblem[]): FieldProblem[] {
  const byPath = new Map<string, FieldProblem>();
  for (const problem of problems) if (!byPath.has(problem.path)) byPath.set(problem.path, problem);
  return [...byPath.values()];
}

function logFailure(request: FastifyRequest, error: unknown): void {
  request.log.error({ err: error }, 'request failed');
}

export const errorHandlerPlugin = fp(
  async (app: FastifyInstance) => {
    // A path that exists under other methods is a 405 naming them (RFC 9110), not a 404.
    // (A route of this very method that found nothing to serve is a plain 404.)
    const answerNotFound = (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0] ?? '';
      const routed = (method: string) => app.findRoute({ method, url: path }) !== null;
      const allowed = routed(request.method) ? [] : METHODS.filter(routed);
      if (allowed.length > 0) {
        return sendProblem(request, reply, {
          code: 'METHOD_NOT_ALLOWED',
          detail: `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
          headers: { allow: allowed.join(', ') },
        });
      }
      return sendProblem(request, reply, {
        code: 'NOT_FOUND',
        detail: `No route for ${request.method} ${path}`,
      });
    };

    app.setErrorHandler((error: FastifyError, request, reply) => {
      // A body sent to no route fails to parse before the not-found handler runs: what is
      // wrong is the route, not the body.
      if (request.is404 && isBodyError(error)) return answerNotFound(request, reply);
      if (isAppError(error)) {
        if (error.status >= 500) logFailure(request, error);
        return sendProblem(request, reply, {
          code: error.code,
          detail: error.message,
          errors: error.errors,
          headers: error.headers,
          extensions: error.extensions,
        });
      }
      if (hasZodFastifySchemaValidationErrors(error)) {
        const errors = onePerField(
          error.validation.flatMap((issue) => {
            // An unknown field is reported at its own path, not at its parent's.
            const unknownKeys =
              issue.keyword === 'unrecognized_keys' ? issue.params.keys : undefined;
            if (Array.isArray(unknownKeys)) {
              return unknownKeys.map((key) => ({
                path: fieldPath(`${issue.instancePath}/${String(key)}`, error.validationContext),
                message: 'is not a known field',
              }));
            }
            return [
              {
                path: fieldPath(issue.instancePath, error.validationContext),
                message: issue.message ?? 'is invalid',
              },
            ];
          }),
        );
        return sendProblem(request, reply, {
          code: 'VALIDATION_FAILED',
          detail: `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}`,
          errors,
        });
      }
      const known = FASTIFY_ERROR_CODES[error.code];
      if (known !== undefined) return sendProblem(request, reply, known);

      // The database being away or slow is not a bug: say so, and when to come back.
      const databaseFailure = databaseFailureOf(error);
      if (databaseFailure !== undefined) {
        request.log.warn({ err: error, databaseFailure }, 'database unavailable');
        return sendProblem(request, reply, {
          code: 'UNAVAILABLE',
          detail: `${DATABASE_FAILURE_DETAIL[databaseFailure]}; nothing was recorded. Retry later`,
          headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
        });
      }

      // Anything else is our fault. Its message may hold internals: log it, never send it.
      logFailure(request, error);
      return sendProblem(request, reply, {
        code: 'INTERNAL_ERROR',
        detail: 'Something went wrong on our side; quote the requestId when you report it',
      });
    });

    app.setNotFoundHandler(answerNotFound);
  },
  { name: 'error-handler' },
);
