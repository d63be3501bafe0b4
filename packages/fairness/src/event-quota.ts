import { MINUTE_MS } from '@ingest/contracts';
import type { Cluster, Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';

/** What an account got from its quota of events for the current minute. */
export interface Taken {
  /** Events it may publish now: the first `granted` of those it asked for. */
  granted: number;
  /** Its limit this minute (RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE times its weight). */
  limit: number;
  /** What is left after this. */
  remaining: number;
  /** When the minute's count starts again. */
  resetSeconds: number;
}

export interface EventQuota {
  /** Takes up to `count` events from the account's quota; those refused are given back. */
  take(accountId: string, limit: number, count: number): Promise<Taken>;
  /** How many are left, without taking any. */
  peek(accountId: string, limit: number): Promise<Taken>;
}

/**
 * The per-account content rate limit, in Redis so that it holds across API instances. Both
 * publishing routes share it, and a batch counts each of its events: hence
 * rate-limiter-flexible's fixed window, which takes many points at once, rather than
 * @fastify/rate-limit (one a request). Like the other limiters it fails open: when Redis
 * cannot answer, every event is granted (PostgreSQL still records each one).
 */
export function createEventQuota(redis: Redis | Cluster, keyPrefix: string): EventQuota {
  const counter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${keyPrefix}:rate-limit:content-account`,
    // Only the window is the limiter's: each account's limit depends on its weight, and is
    // compared here with what the counter returns.
    points: Number.MAX_SAFE_INTEGER,
    duration: MINUTE_MS / 1000,
    // Not connected: fail open at once rather than queue the command.
    rejectIfRedisNotReady: true,
  });
  const unlimited = (limit: number, count: number): Taken => ({
    granted: count,
    limit,
    remaining: limit,
    resetSeconds: 0,
  });
  /** What is left of `limit` once `consumed` events count, until the window starts again. */
  const left = (granted: number, limit: number, consumed: number, msBeforeNext: number) => ({
    granted,
    limit,
    remaining: Math.max(0, limit - consumed),
    resetSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)),
  });
  return {
    async take(accountId, limit, count) {
      let consumed: number;
      let msBeforeNext: number;
      try {
        ({ consumedPoints: consumed, msBeforeNext } = await counter.penalty(accountId, count));
      } catch {
        return unlimited(limit, count);
      }
      const before = consumed - count;
      const granted = Math.max(0, Math.min(count, limit - before));
      if (granted < count) await counter.reward(accountId, count - granted).catch(() => {});
      return left(granted, limit, before + granted, msBeforeNext);
    },
    async peek(accountId, limit) {
      try {
        const state = await counter.get(accountId);
        if (state === null) return unlimited(limit, 0);
        return left(0, limit, state.consumedPoints, state.msBeforeNext);
      } catch {
        return unlimited(limit, 0);
      }
    },
  };
}
