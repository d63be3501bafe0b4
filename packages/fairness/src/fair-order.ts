import type { Queue } from 'bullmq';
import { runScript, type QueueScript } from './queue-scripts.js';

/**
 * Fair order of the content queue: weighted fair queuing (start-time fair queuing, Goyal
 * et al.) over BullMQ's job priorities, which order the queue by priority, then FIFO.
 *
 * Each account has a finish tag F in "levels" of virtual time; the queue's virtual time V
 * is the level of the job next in line. A job of account a starts at S = max(V, F_a), and
 * F_a becomes S + 1 / (EVENTS_PER_LEVEL × weight); its priority is the level of S. So an
 * account with nothing queued starts at the head, right behind what is there already,
 * whatever another account's backlog; a backlogged account's jobs follow its own, one
 * level each EVENTS_PER_LEVEL × weight events; and accounts with backlogs share the
 * workers' turns in proportion to their weights. Jobs of one account keep their order.
 *
 * Order within an account's line never depends on this: PostgreSQL holds it (the claim
 * blocks an event behind an earlier one of its line). Priorities only decide whose job a
 * worker takes next.
 */

/** Events an account of weight 1 puts in one level: the head's level holds that many of each. */
export const EVENTS_PER_LEVEL = 8;
/** BullMQ's highest priority (2^21): a priority is a level + 1 (0 would skip the ordering). */
const MAX_PRIORITY = 2_097_152;
/** Past this level, the maintenance loop shifts every level down (rebaseFairOrder). */
export const REBASE_LEVEL = 1_048_576;

/** `<prefix>:content-events:fair`: V's fallback, the highest start given, each account's F. */
const stateKey = (queue: Queue) => `${queue.qualifiedName}:fair`;

/** BullMQ scores a prioritized job `priority × 2^32 + a counter` (FIFO within a priority). */
const SCORE_PER_PRIORITY = 2 ** 32;
/** Lua each script opens with: virtualTime is V (the level of the head, else top) and top. */
const PRELUDE = `
local SCORE_PER_PRIORITY = ${SCORE_PER_PRIORITY}
local function virtualTime(prioritized, state)
  local top = tonumber(redis.call('HGET', state, 'top') or '0')
  local head = redis.call('ZRANGE', prioritized, 0, 0, 'WITHSCORES')
  if head[2] then return math.floor(tonumber(head[2]) / SCORE_PER_PRIORITY) - 1, top end
  return top, top
end`;

/**
 * KEYS: prioritized zset, fair state hash. ARGV: events per level, highest level, then an
 * account id and its weight per job. Returns each job's priority, in order.
 */
const ASSIGN: QueueScript = {
  name: 'ingestFairAssign',
  numberOfKeys: 2,
  lua: `${PRELUDE}
local prioritized, state = KEYS[1], KEYS[2]
local perLevel, maxLevel = tonumber(ARGV[1]), tonumber(ARGV[2])
local v, top = virtualTime(prioritized, state)
local finish, priorities = {}, {}
for i = 3, #ARGV, 2 do
  local account, weight = ARGV[i], tonumber(ARGV[i + 1])
  local f = finish[account] or tonumber(redis.call('HGET', state, 'f:' .. account) or '0')
  local s = math.max(v, f)
  finish[account] = s + 1 / (perLevel * weight)
  if s > top then top = s end
  priorities[#priorities + 1] = math.min(maxLevel, math.floor(s)) + 1
end
for account, f in pairs(finish) do redis.call('HSET', state, 'f:' .. account, tostring(f)) end
redis.call('HSET', state, 'top', tostring(top))
return priorities`,
};

/**
 * KEYS: prioritized zset, delayed zset, active list, fair state hash. ARGV: job key
 * prefix, the level past which to shift. When the head is past it, every level moves down
 * by the head's: queued jobs' scores and the priority stored in each job (which BullMQ
 * reads when a parked, retried or stalled job comes back), and the tags. Accounts whose
 * tag falls behind the head are forgotten: they start at the head anyway. Returns the
 * shift (0: none was due).
 */
const REBASE: QueueScript = {
  name: 'ingestFairRebase',
  numberOfKeys: 4,
  lua: `${PRELUDE}
local prioritized, delayed, active, state = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local jobPrefix, due = ARGV[1], tonumber(ARGV[2])
local v = virtualTime(prioritized, state)
if v < due then return 0 end
local shift = math.floor(v)
local function lowered(id)
  local p = tonumber(redis.call('HGET', jobPrefix .. id, 'priority') or '0')
  if p > 0 then
    local q = math.max(1, p - shift)
    redis.call('HSET', jobPrefix .. id, 'priority', q)
    return q
  end
  return p
end
local queued = redis.call('ZRANGE', prioritized, 0, -1, 'WITHSCORES')
for i = 1, #queued, 2 do
  local score = tonumber(queued[i + 1])
  local p = math.max(1, math.floor(score / SCORE_PER_PRIORITY) - shift)
  redis.call('HSET', jobPrefix .. queued[i], 'priority', p)
  redis.call('ZADD', prioritized, p * SCORE_PER_PRIORITY + score % SCORE_PER_PRIORITY, queued[i])
end
for _, id in ipairs(redis.call('ZRANGE', delayed, 0, -1)) do lowered(id) end
for _, id in ipairs(redis.call('LRANGE', active, 0, -1)) do lowered(id) end
local fields = redis.call('HGETALL', state)
for i = 1, #fields, 2 do
  local value = tonumber(fields[i + 1]) - shift
  if fields[i] == 'top' then redis.call('HSET', state, 'top', tostring(math.max(0, value)))
  elseif value <= 0 then redis.call('HDEL', state, fields[i])
  else redis.call('HSET', state, fields[i], tostring(value)) end
end
return shift`,
};

/** KEYS: prioritized zset, fair state hash. Returns how many tags it forgot. */
const PRUNE: QueueScript = {
  name: 'ingestFairPrune',
  numberOfKeys: 2,
  lua: `${PRELUDE}
local prioritized, state = KEYS[1], KEYS[2]
local v = virtualTime(prioritized, state)
local fields, gone = redis.call('HGETALL', state), 0
for i = 1, #fields, 2 do
  if fields[i] ~= 'top' and tonumber(fields[i + 1]) <= v then
    redis.call('HDEL', state, fields[i])
    gone = gone + 1
  end
end
return gone`,
};

export interface FairJob {
  accountId: string;
  weight: number;
}

/** The priorities of jobs about to be added, in order (one script call for them all). */
export async function fairPriorities(queue: Queue, jobs: FairJob[]): Promise<number[]> {
  if (jobs.length === 0) return [];
  return runScript<number[]>(queue, ASSIGN, [
    queue.keys.prioritized!,
    stateKey(queue),
    EVENTS_PER_LEVEL,
    MAX_PRIORITY - 1,
    ...jobs.flatMap(({ accountId, weight }) => [accountId, Math.max(1, weight)]),
  ]);
}

/**
 * Keeps levels within BullMQ's range: once the head passes `dueLevel`, shifts every level
 * down by the head's (one write per job, but rarely due). Returns the shift (0: none was due).
 */
export async function rebaseFairOrder(queue: Queue, dueLevel = REBASE_LEVEL): Promise<number> {
  return runScript<number>(queue, REBASE, [
    queue.keys.prioritized!,
    queue.keys.delayed!,
    queue.keys.active!,
    stateKey(queue),
    queue.keys['']!,
    dueLevel,
  ]);
}

/** Forgets the tags of accounts not ahead of V (their next job starts at V anyway). */
export async function pruneFairOrder(queue: Queue): Promise<number> {
  return runScript<number>(queue, PRUNE, [queue.keys.prioritized!, stateKey(queue)]);
}
