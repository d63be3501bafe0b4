import { MINUTE_MS } from '@ingest/contracts';
import type { RedisClient } from './redis-connection.js';

const KEEP_SECONDS = 2 * 60 * 60;
const FLUSH_INTERVAL_MS = 1_000;

const minuteOf = (time: number): number => Math.floor(time / MINUTE_MS) * MINUTE_MS;
const keyOf = (keyPrefix: string, name: string, minute: number) =>
  `${keyPrefix}:stats:${name}:${minute}`;

/**
 * What is counted per minute: calls' events accepted and rejected (400s recorded in the
 * event log) and requests refused (429 and 503) by the API; events applied and failed for
 * good by the workers.
 */
export const MINUTE_COUNTS = ['accepted', 'rejected', 'refused', 'applied', 'failed'] as const;
export type MinuteCountName = (typeof MINUTE_COUNTS)[number];

export interface MinuteCounter {
  increment(by?: number): void;
  /** Writes what is counted so far; called every second, and on shutdown. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Counts events per minute, shared by every process through Redis, for the operators'
 * throughput chart. Counting is in memory and written once a second (INCRBY), so the
 * hot path pays nothing; a process that dies loses at most a second of counts, which a
 * chart can bear. Redis being away loses those seconds too, and nothing else.
 */
export function createMinuteCounter(
  redis: RedisClient,
  keyPrefix: string,
  name: MinuteCountName,
): MinuteCounter {
  const pending = new Map<number, number>();
  const flush = async () => {
    if (pending.size === 0) return;
    const batch = [...pending];
    pending.clear();
    // One command a key, not a pipeline: on a cluster, each minute's key has its own slot.
    await Promise.all(
      batch.map(async ([minute, count]) => {
        const key = keyOf(keyPrefix, name, minute);
        await redis.incrby(key, count);
        await redis.expire(key, KEEP_SECONDS);
      }),
    ).catch(() => undefined);
  };
  const timer = setInterval(() => void flush(), FLUSH_INTERVAL_MS);
  timer.unref();
  return {
    increment(by = 1) {
      const minute = minuteOf(Date.now());
      pending.set(minute, (pending.get(minute) ?? 0) + by);
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}

/** The counts of the last `minutes` minutes, oldest first, this minute included. */
export async function readMinuteCounts(
  redis: RedisClient,
  keyPrefix: string,
  name: MinuteCountName,
  minutes: number,
  now = Date.now(),
): Promise<Array<{ minute: number; count: number }>> {
  const last = minuteOf(now);
  const starts = Array.from(
    { length: minutes },
    (_, index) => last - (minutes - 1 - index) * MINUTE_MS,
  );
  // GETs sent together rather than one MGET, whose keys would span slots on a cluster.
  const values = await Promise.all(
    starts.map((minute) => redis.get(keyOf(keyPrefix, name, minute))),
  );
  return starts.map((minute, index) => ({ minute, count: Number(values[index] ?? 0) }));
}

/** One counter of each name, stopped (flushed) together. */
export type MinuteCounters<Name extends MinuteCountName> = Record<Name, MinuteCounter> & {
  stopAll(): Promise<void>;
};

export function createMinuteCounters<Name extends MinuteCountName>(
  redis: RedisClient,
  keyPrefix: string,
  names: readonly Name[],
): MinuteCounters<Name> {
  const counters = Object.fromEntries(
    names.map((name) => [name, createMinuteCounter(redis, keyPrefix, name)]),
  ) as Record<Name, MinuteCounter>;
  return {
    ...counters,
    stopAll: async () => {
      await Promise.all(names.map((name) => counters[name].stop()));
    },
  };
}
