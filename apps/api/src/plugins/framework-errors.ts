import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import {
  ERROR_CODES,
  PROBLEM_CONTENT_TYPE,
  problemTypeOf,
  type ErrorCode,
} from '@ingest/contracts';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './problem.js';

/**
 * Errors Fastify raises before any route runs, so that no error handler of ours sees
 * them: a path whose percent-escapes do not decode, a path parameter past the router's
 * limit. Fastify's own answer is plain JSON without a request id; ours is the problem.
 */
export function frameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void sendProblem(request, reply, {
      code: 'URI_TOO_LONG',
      detail: 'A part of the path is longer than any this API takes',
    });
    return;
  }
  void sendProblem(request, reply, {
    code: 'VALIDATION_FAILED',
    detail: 'The URL is not valid',
    errors: [{ path: 'url', message: 'must be percent-encoded UTF-8' }],
  });
}

const CLIENT_ERRORS: Record<string, { code: ErrorCode; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    code: 'HEADERS_TOO_LARGE',
    detail: 'The request headers are larger than this server accepts',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'REQUEST_TIMEOUT',
    detail: 'The request did not arrive in time',
  },
};

/**
 * Node's HTTP parser refuses some requests before Fastify exists for them (headers too
 * large, a malformed request line): an answer goes straight to the socket. It is still
 * the problem document, with a request id of its own, which the log line carries too.
 */
export function clientErrorHandler(
  this: { log: { info: (object: object, message: string) => void } },
  error: Error & { code?: string },
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, detail } = CLIENT_ERRORS[error.code ?? ''] ?? {
    code: 'VALIDATION_FAILED' as const,
    detail: 'The request is not valid HTTP',
  };
  const { status, title } = ERROR_CODES[code];
  const requestId = randomUUID();
  this.log.info({ requestId, err: error, status }, 'request refused by the HTTP parser');
  const body = JSON.stringify({
    type: problemTypeOf(code),
    title,
    status,
    detail,
    message: detail,
    code,
    requestId,
  });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
