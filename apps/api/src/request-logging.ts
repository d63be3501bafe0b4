import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The event a content request recorded, accepted or rejected; null for other requests. */
    eventId: string | null;
  }
}

/**
 * One log line a request, written when it completes: Fastify's default adds an
 * "incoming request" line too, doubling log volume on the ingest path for nothing the
 * completion line lacks. The incoming line is kept at debug level for tracing.
 */
export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(
    error: Error | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    // Refusals are counted and summed up (createRefusalReport, @ingest/fairness): a line each would
    // make refusing the heaviest work of an API that refuses because it is overloaded.
    if (request.refusedFor !== null && error === undefined) return;
    const line = {
      method: request.method,
      // Logged as `url`, the logger censors the values of credential query parameters.
      url: request.url,
      statusCode: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
      // With the requestId, one grep follows an event from its request to its worker.
      ...(request.eventId === null ? {} : { eventId: request.eventId }),
    };
    if (error !== undefined) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
