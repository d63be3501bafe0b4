import type { Queue } from 'bullmq';
import { runScript, type QueueScript } from './queue-scripts.js';

/**
 * An account's cap on events in flight (`maxInFlight`), over every worker: a semaphore in
 * Redis. A slot is held by a job id until released, or until it lapses (a worker that died
 * holding it): each is a member of a sorted set scored by when it lapses. A job that finds
 * no slot free waits in the account's waiting set, oldest first, and is handed a slot by
 * name when one is released.
 */

const slotsKey = (queue: Queue, accountId: string) =>
  `${queue.qualifiedName}:fair:slots:${accountId}`;
const waitingKey = (queue: Queue, accountId: string) =>
  `${queue.qualifiedName}:fair:capped:${accountId}`;

/** KEYS: slots, waiting. ARGV: job id, cap, now, lapse. 1: a slot is held; 0: it waits. */
const ACQUIRE: QueueScript = {
  name: 'ingestSlotAcquire',
  numberOfKeys: 2,
  lua: `
local slots, waiting = KEYS[1], KEYS[2]
local id, cap, now, lapse = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
if redis.call('ZSCORE', slots, id) or redis.call('ZCARD', slots) < cap then
  redis.call('ZADD', slots, now + lapse, id)
  redis.call('ZREM', waiting, id)
  return 1
end
redis.call('ZADD', waiting, 'NX', now, id)
return 0`,
};

/**
 * KEYS: slots, waiting. ARGV: job id (or '' for none), cap, now. Releases the job's slot,
 * then hands the slots now free to the oldest waiting jobs: their ids, to be woken.
 */
const RELEASE: QueueScript = {
  name: 'ingestSlotRelease',
  numberOfKeys: 2,
  lua: `
local slots, waiting = KEYS[1], KEYS[2]
local id, cap, now = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if id ~= '' then redis.call('ZREM', slots, id) end
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
local free = cap - redis.call('ZCARD', slots)
if free <= 0 then return {} end
local next = redis.call('ZRANGE', waiting, 0, free - 1)
for _, waiter in ipairs(next) do redis.call('ZREM', waiting, waiter) end
return next`,
};

export interface SlotRequest {
  accountId: string;
  jobId: string;
  cap: number;
  /** How long an unreleased slot is held (a worker that died): its job's lock duration. */
  lapseMs: number;
}

/** Takes a slot of the account for the job: false when all are held (the job then waits). */
export async function acquireSlot(queue: Queue, request: SlotRequest): Promise<boolean> {
  const { accountId, jobId, cap, lapseMs } = request;
  const held = await runScript<number>(queue, ACQUIRE, [
    slotsKey(queue, accountId),
    waitingKey(queue, accountId),
    jobId,
    cap,
    Date.now(),
    lapseMs,
  ]);
  return held === 1;
}

/**
 * Gives the job's slot back (none: `jobId` null, to wake a waiter after a race) and
 * returns the ids of the waiting jobs to wake, oldest first, one per slot now free.
 */
export async function releaseSlot(
  queue: Queue,
  request: Omit<SlotRequest, 'lapseMs' | 'jobId'> & { jobId: string | null },
): Promise<string[]> {
  return runScript<string[]>(queue, RELEASE, [
    slotsKey(queue, request.accountId),
    waitingKey(queue, request.accountId),
    request.jobId ?? '',
    request.cap,
    Date.now(),
  ]);
}
