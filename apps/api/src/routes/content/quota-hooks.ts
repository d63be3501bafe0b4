import { createEventQuota, overLimit, rateLimitHeaders, type Taken } from '@ingest/fairness';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiDeps } from '../../deps.js';

/**
 * The per-account content rate limit on the publishing routes, counted in events, whichever
 * of the account's keys sends (more keys buy no more events; its weight, set by an operator,
 * does). A single publish takes its event before its body is read; a batch is refused there
 * only when nothing is left, and takes its events once they are counted.
 */
export function contentQuotaHooks(app: FastifyInstance, deps: ApiDeps) {
  const quota = createEventQuota(deps.redis, deps.config.redis.keyPrefix);
  const limitOf = (accountId: string) =>
    deps.config.limits.contentPerAccountPerMinute * deps.shares.shareOf(accountId).weight;
  const accountOf = (request: FastifyRequest) =>
    request.principal?.via === 'apiKey' ? request.principal.accountId : undefined;

  /** Answers 429 when nothing was granted; otherwise sets the RateLimit-* headers. */
  const answer = (request: FastifyRequest, reply: FastifyReply, taken: Taken) => {
    if (taken.resetSeconds === 0) return taken; // Redis did not answer: not limited
    if (taken.granted === 0) {
      const refusal = overLimit('events', 'content-account', taken.limit, taken.resetSeconds);
      app.refuse(request, reply, refusal);
      return undefined;
    }
    reply.headers(rateLimitHeaders(taken.limit, taken.remaining, taken.resetSeconds));
    return taken;
  };

  return {
    /** preParsing of a single publish: its event. */
    async takeOne(request: FastifyRequest, reply: FastifyReply) {
      const accountId = accountOf(request);
      if (reply.sent || accountId === undefined) return;
      answer(request, reply, await quota.take(accountId, limitOf(accountId), 1));
    },
    /** preParsing of a batch: refused at once when the account has nothing left. */
    async refuseWhenSpent(request: FastifyRequest, reply: FastifyReply) {
      const accountId = accountOf(request);
      if (reply.sent || accountId === undefined) return;
      const left = await quota.peek(accountId, limitOf(accountId));
      if (left.resetSeconds > 0 && left.remaining === 0) answer(request, reply, left);
    },
    /** A batch's events, once counted: what was granted, or undefined when it was refused. */
    async take(request: FastifyRequest, reply: FastifyReply, count: number) {
      const accountId = accountOf(request);
      if (accountId === undefined) throw new Error('route is missing requireApiKey');
      return answer(request, reply, await quota.take(accountId, limitOf(accountId), count));
    },
  };
}
