import {
  ERROR_CODES,
  PROBLEM_CONTENT_TYPE,
  problemTypeOf,
  type ErrorCode,
  type FieldProblem,
  type Problem,
} from '@ingest/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface ProblemInput {
  code: ErrorCode;
  detail: string;
  errors?: FieldProblem[] | undefined;
  headers?: Record<string, string>;
  extensions?: Record<string, unknown>;
}

/** Sends the one error shape of this API (RFC 9457 + `message`, `code`, `requestId`). */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, input: ProblemInput) {
  const { status, title } = ERROR_CODES[input.code];
  const problem: Problem = {
    ...input.extensions,
    type: problemTypeOf(input.code),
    title,
    status,
    detail: input.detail,
    message: input.detail,
    code: input.code,
    requestId: request.id,
    ...(input.errors === undefined ? {} : { errors: input.errors }),
  };
  return reply
    .code(status)
    .headers(input.headers ?? {})
    .type(PROBLEM_CONTENT_TYPE)
    .send(problem);
}
