import type { Cluster, Redis } from 'ioredis';

/** What a receiver set for its endpoint; null is no limit. */
export interface EndpointLimits {
  /** Requests a second, spread evenly: one each 1000/perSecond ms, no burst. */
  perSecond: number | null;
  /** Attempts under way at once, over every worker. */
  inFlight: number | null;
}

export type Admission = { granted: true } | { granted: false; retryInMs: number };

export interface EndpointLimiter {
  /**
   * Takes a slot for one attempt: a rate slot and an in-flight lease (held until release or
   * until leaseMs passes), both or neither. Taking again a lease the delivery holds renews
   * it rather than taking a second one; the rate slot is taken each time, since each
   * attempt is a request the receiver sees.
   */
  acquire(
    endpointId: string,
    deliveryId: string,
    limits: EndpointLimits,
    leaseMs: number,
  ): Promise<Admission>;
  release(endpointId: string, deliveryId: string): Promise<void>;
  /**
   * Holds every attempt to the endpoint for `ms` from now (a receiver's Retry-After); a
   * longer hold already set stands. Endpoints without limits never ask, so are not held.
   */
  holdFor(endpointId: string, ms: number): Promise<void>;
}

/** An in-flight refusal waits no longer than this: releases normally come before a lease lapses. */
const MAX_IN_FLIGHT_WAIT_MS = 250;
/** Keys outlive what they hold by this much, then go. */
const KEY_SLACK_MS = 1_000;

/**
 * Hand-written rather than rate-limiter-flexible: its windows let a burst through at each
 * window's edge and it has no leases, and here the rate slot and the lease are taken
 * together or not at all, in one script.
 *
 * KEYS: rate (hash: tat, hold), leases (sorted set: delivery id -> lapse ms).
 * ARGV: delivery id, interval ms (0: no rate), in-flight cap (0: none), lease ms, max
 * in-flight wait ms, key slack ms. Returns 0 when granted, else the ms to wait.
 * Redis's TIME is the only clock: the workers' clocks disagree.
 */
const ACQUIRE_LUA = `
local rateKey, leasesKey = KEYS[1], KEYS[2]
local id = ARGV[1]
local interval, cap, leaseMs = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local maxLeaseWait, slack = tonumber(ARGV[5]), tonumber(ARGV[6])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000

local state = redis.call('HMGET', rateKey, 'tat', 'hold')
local tat, hold = tonumber(state[1]) or 0, tonumber(state[2]) or 0
if hold > now then return math.max(1, math.ceil(hold - now)) end

local wait = 0
if interval > 0 and tat > now then wait = tat - now end
if cap > 0 then
  redis.call('ZREMRANGEBYSCORE', leasesKey, '-inf', now)
  if not redis.call('ZSCORE', leasesKey, id) and redis.call('ZCARD', leasesKey) >= cap then
    local earliest = redis.call('ZRANGE', leasesKey, 0, 0, 'WITHSCORES')
    wait = math.max(wait, math.min(tonumber(earliest[2]) - now, maxLeaseWait))
  end
end
if wait > 0 then return math.max(1, math.ceil(wait)) end

if interval > 0 then
  redis.call('HSET', rateKey, 'tat', math.max(tat, now) + interval)
  redis.call('PEXPIRE', rateKey, math.ceil(interval + slack))
end
if cap > 0 then
  redis.call('ZADD', leasesKey, now + leaseMs, id)
  if redis.call('PTTL', leasesKey) < leaseMs + slack then
    redis.call('PEXPIRE', leasesKey, math.ceil(leaseMs + slack))
  end
end
return 0`;

/** KEYS: rate. ARGV: hold ms, key slack ms. Moves the hold later, never earlier. */
const HOLD_LUA = `
local rateKey = KEYS[1]
local ms, slack = tonumber(ARGV[1]), tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local state = redis.call('HMGET', rateKey, 'tat', 'hold')
local hold = math.max(tonumber(state[2]) or 0, now + ms)
redis.call('HSET', rateKey, 'hold', hold)
redis.call('PEXPIRE', rateKey, math.ceil(math.max(hold, tonumber(state[1]) or 0) - now + slack))
return 0`;

/** The commands defineCommand adds, which ioredis's types cannot know of. */
interface LimiterCommands {
  ingestEndpointAcquire(
    rateKey: string,
    leasesKey: string,
    deliveryId: string,
    intervalMs: number,
    inFlight: number,
    leaseMs: number,
    maxLeaseWaitMs: number,
    slackMs: number,
  ): Promise<number>;
  ingestEndpointHold(rateKey: string, ms: number, slackMs: number): Promise<number>;
}

function checkLimits({ perSecond, inFlight }: EndpointLimits, leaseMs: number): void {
  if (perSecond !== null && !(perSecond > 0 && Number.isFinite(perSecond)))
    throw new RangeError(`perSecond must be a positive number, not ${perSecond}`);
  if (inFlight !== null && !(Number.isInteger(inFlight) && inFlight > 0))
    throw new RangeError(`inFlight must be a positive integer, not ${inFlight}`);
  if (inFlight !== null && !(leaseMs > 0 && Number.isFinite(leaseMs)))
    throw new RangeError(`leaseMs must be a positive number, not ${leaseMs}`);
}

/**
 * Each endpoint's rate (GCRA without burst) and in-flight cap, over every delivery worker:
 * one script and one round trip an acquire. Both keys of an endpoint carry its id as a
 * hash tag, so they share a cluster slot. Rejects when Redis cannot answer.
 */
export function createEndpointLimiter(redis: Redis | Cluster, keyPrefix: string): EndpointLimiter {
  redis.defineCommand('ingestEndpointAcquire', { numberOfKeys: 2, lua: ACQUIRE_LUA });
  redis.defineCommand('ingestEndpointHold', { numberOfKeys: 1, lua: HOLD_LUA });
  const commands = redis as unknown as LimiterCommands;
  const keyOf = (endpointId: string) => `${keyPrefix}:endpoint-limits:{${endpointId}}`;

  return {
    async acquire(endpointId, deliveryId, limits, leaseMs) {
      if (limits.perSecond === null && limits.inFlight === null) return { granted: true };
      checkLimits(limits, leaseMs);
      const key = keyOf(endpointId);
      const waitMs = await commands.ingestEndpointAcquire(
        `${key}:rate`,
        `${key}:inflight`,
        deliveryId,
        limits.perSecond === null ? 0 : 1000 / limits.perSecond,
        limits.inFlight ?? 0,
        leaseMs,
        MAX_IN_FLIGHT_WAIT_MS,
        KEY_SLACK_MS,
      );
      return waitMs === 0 ? { granted: true } : { granted: false, retryInMs: waitMs };
    },
    async release(endpointId, deliveryId) {
      // One command is atomic on its own, and the last member's removal deletes the key.
      await redis.zrem(`${keyOf(endpointId)}:inflight`, deliveryId);
    },
    async holdFor(endpointId, ms) {
      if (!(ms > 0)) return;
      await commands.ingestEndpointHold(`${keyOf(endpointId)}:rate`, ms, KEY_SLACK_MS);
    },
  };
}
