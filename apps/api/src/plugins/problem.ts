import {
  ERROR_CODES,
  PROBLEM_CONTENT_TYPE,
  problemTypeOf,
  type ErrorCode,
  type FieldProblem,
  type Problem,
} from '@ingest/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_ID_HEADER } from './request-id.js';

export interface ProblemInput {
  code: ErrorCode;
  detail: string;
  errors?: FieldProblem[] | undefined;
  headers?: Record<string, string>;
  extensions?: Record<string, unknown>;
}

/** The one error shape of this API (RFC 9457 + `message`, `code`, `requestId`). */
export function problemOf(input: ProblemInput, requestId: string): Problem {
  const { status, title } = ERROR_CODES[input.code];
  return {
    ...input.extensions,
    type: problemTypeOf(input.code),
    title,
    status,
    detail: input.detail,
    message: input.detail,
    code: input.code,
    requestId,
    ...(input.errors === undefined ? {} : { errors: input.errors }),
  };
}

/** Sends the problem of `input` (see problemOf), with its status and headers. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, input: ProblemInput) {
  const problem = problemOf(input, request.id);
  // Every 401 says how to authenticate (RFC 9110); routes add their own challenges.
  const challenge = problem.status === 401 ? { 'www-authenticate': 'Bearer realm="ingest"' } : {};
  // Set here as well as by the request-id hook: errors Fastify raises before routing
  // (plugins/framework-errors.ts) reach this without any hook having run.
  return reply
    .code(problem.status)
    .headers({ ...challenge, ...input.headers, [REQUEST_ID_HEADER]: request.id })
    .type(PROBLEM_CONTENT_TYPE)
    .send(problem);
}
