import { createHash } from 'node:crypto';
import fastifyRateLimit from '@fastify/rate-limit';
import { overLimit, rateLimitHeaders } from '@ingest/fairness';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { RedisClient } from '@ingest/queue';

export interface RateRule {
  /** Names the counter in Redis and in logs: `login-ip`. */
  name: string;
  /** Requests a window; a function for a limit that depends on the caller. */
  max: number | ((request: FastifyRequest) => number);
  windowMs: number;
  /** What is counted; undefined skips the rule for this request. */
  key: (request: FastifyRequest) => string | undefined;
}

/**
 * @fastify/rate-limit counts in Redis so that limits hold across API instances. When
 * Redis cannot answer, its counters are skipped (`skipOnError`): these limiters fail
 * open, trading a short loss of throttling for staying available (README, "Limits").
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, options: { redis: RedisClient; keyPrefix: string }) => {
    await app.register(fastifyRateLimit, {
      global: false,
      redis: options.redis,
      nameSpace: `${options.keyPrefix}:rate-limit:`,
      skipOnError: true,
    });
  },
  { name: 'rate-limit' },
);

/** Keys may hold personal data (an email): Redis sees a digest instead. */
export const digestOf = (value: string): string =>
  createHash('sha256').update(value).digest('base64url').slice(0, 22);

/**
 * A hook enforcing every rule at once. The plugin runs only one of its own hooks per
 * request, so rules are checked through `createRateLimit` and answered here: 429
 * RATE_LIMITED with Retry-After, and RateLimit-* headers (IETF draft) of the tightest rule.
 * A refusal is counted and summed up in the log with admission control's (app.refuse),
 * not logged one by one. Resolves with the reply when it refused, for the caller to stop.
 */
export function rateLimitHook(app: FastifyInstance, rules: RateRule[]) {
  const checks = rules.map((rule) => ({
    rule,
    check: app.createRateLimit({
      max: rule.max,
      timeWindow: rule.windowMs,
      keyGenerator: (request) => `${rule.name}:${rule.key(request) ?? ''}`,
    }),
  }));
  return async (request: FastifyRequest, reply: FastifyReply) => {
    let tightest: { max: number; remaining: number; resetSeconds: number } | undefined;
    for (const { rule, check } of checks) {
      if (rule.key(request) === undefined) continue;
      const result = await check(request);
      if (result.isAllowed || result.ttl === 0) continue; // allow-listed, or Redis skipped
      if (result.isExceeded) {
        const refusal = overLimit('requests', rule.name, result.max, result.ttlInSeconds);
        return app.refuse(request, reply, refusal);
      }
      if (tightest === undefined || result.remaining < tightest.remaining) {
        tightest = {
          max: result.max,
          remaining: result.remaining,
          resetSeconds: result.ttlInSeconds,
        };
      }
    }
    if (tightest !== undefined) {
      reply.headers(rateLimitHeaders(tightest.max, tightest.remaining, tightest.resetSeconds));
    }
    return undefined;
  };
}
