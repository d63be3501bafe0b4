import { MINUTE_MS } from '@ingest/contracts';
import type { RedisClient } from './redis-connection.js';

/** A day and an hour: the longest window read, and the minute being written. */
const KEEP_SECONDS = 25 * 60 * 60;
const FLUSH_INTERVAL_MS = 1_000;

const minuteOf = (time: number): number => Math.floor(time / MINUTE_MS) * MINUTE_MS;
const keyOf = (keyPrefix: string, minute: number) => `${keyPrefix}:history:${minute}`;
const memberOf = (name: string, accountId?: string) =>
  accountId === undefined ? name : `${name}@${accountId}`;

/**
 * What is counted per minute: calls' events accepted and rejected (400s recorded in the
 * event log) and requests refused (429 and 503) by the API; events applied and failed for
 * good by the workers.
 */
export const MINUTE_COUNTS = ['accepted', 'rejected', 'refused', 'applied', 'failed'] as const;
export type MinuteCountName = (typeof MINUTE_COUNTS)[number];

/** What is sampled, and kept as its highest value in each minute. */
export const MINUTE_GAUGES = ['depth', 'oldestWaitingSeconds'] as const;
export type MinuteGaugeName = (typeof MINUTE_GAUGES)[number];

export interface MinuteCounter {
  /**
   * Counts `by` events, for the whole service and, given one, for the account; with a
   * reason, also apart as `<name>:<reason>` (why requests were refused).
   */
  increment(by?: number, accountId?: string, reason?: string): void;
}

/** One counter of each name, written together once a second and on stop. */
export type MinuteCounters<Name extends MinuteCountName> = Record<Name, MinuteCounter> & {
  flush(): Promise<void>;
  stopAll(): Promise<void>;
};

/**
 * Counts per minute, shared by every process through Redis, for the operators' history:
 * one sorted set a minute, kept a day, holding each count (ZINCRBY) and each gauge's
 * highest value (ZADD GT), for the service and per account (`name@accountId`). Counting is
 * in memory and written once a second, so the hot path pays nothing; a process that dies
 * loses at most a second of counts, which a chart can bear. Redis being away loses those
 * seconds too, and nothing else. A restart of an API or a worker loses none of it.
 */
export function createMinuteCounters<Name extends MinuteCountName>(
  redis: RedisClient,
  keyPrefix: string,
  names: readonly Name[],
): MinuteCounters<Name> {
  const pending = new Map<number, Map<string, number>>();
  const add = (minute: number, member: string, by: number) => {
    const counts = pending.get(minute) ?? new Map<string, number>();
    counts.set(member, (counts.get(member) ?? 0) + by);
    pending.set(minute, counts);
  };
  const flush = async () => {
    if (pending.size === 0) return;
    const minutes = [...pending];
    pending.clear();
    await Promise.all(
      minutes.map(async ([minute, counts]) => {
        const key = keyOf(keyPrefix, minute);
        await Promise.all([...counts].map(([member, by]) => redis.zincrby(key, by, member)));
        await redis.expire(key, KEEP_SECONDS);
      }),
    ).catch(() => undefined);
  };
  const timer = setInterval(() => void flush(), FLUSH_INTERVAL_MS);
  timer.unref();
  const counterOf = (name: Name): MinuteCounter => ({
    increment(by = 1, accountId, reason) {
      const minute = minuteOf(Date.now());
      const names = reason === undefined ? [name] : [name, `${name}:${reason}`];
      for (const counted of names) {
        add(minute, counted, by);
        if (accountId !== undefined) add(minute, memberOf(counted, accountId), by);
      }
    },
  });
  return {
    ...(Object.fromEntries(names.map((name) => [name, counterOf(name)])) as Record<
      Name,
      MinuteCounter
    >),
    flush,
    async stopAll() {
      clearInterval(timer);
      await flush();
    },
  };
}

/** A sample of the gauges: the service's, and each account's that has any. */
export interface GaugeSample {
  total: Record<MinuteGaugeName, number>;
  byAccount: Array<{ accountId: string } & Record<MinuteGaugeName, number>>;
}

/** Keeps the sample where it is higher than what the minute holds. */
export async function recordGauges(
  redis: RedisClient,
  keyPrefix: string,
  sample: GaugeSample,
  now = Date.now(),
): Promise<void> {
  const key = keyOf(keyPrefix, minuteOf(now));
  const entries = [
    ...MINUTE_GAUGES.map((gauge) => [sample.total[gauge], gauge] as const),
    ...sample.byAccount.flatMap((account) =>
      MINUTE_GAUGES.map((gauge) => [account[gauge], memberOf(gauge, account.accountId)] as const),
    ),
  ];
  await redis.zadd(key, 'GT', ...entries.flatMap(([value, member]) => [value, member]));
  await redis.expire(key, KEEP_SECONDS);
}

export type HistoryPoint = { start: number } & Record<MinuteCountName | MinuteGaugeName, number>;

export interface History {
  points: HistoryPoint[];
  /** Refusals over the whole window, by the reasons asked for. */
  refusedByReason: Record<string, number>;
}

/**
 * The last `buckets` buckets of `bucketMinutes` minutes each, oldest first, the current
 * one included: counts summed, gauges at their highest. For one account, or the service.
 */
export async function readHistory(
  redis: RedisClient,
  keyPrefix: string,
  {
    buckets,
    bucketMinutes,
    accountId,
    reasons,
  }: { buckets: number; bucketMinutes: number; accountId?: string; reasons: readonly string[] },
  now = Date.now(),
): Promise<History> {
  const bucketMs = bucketMinutes * MINUTE_MS;
  const last = Math.floor(now / bucketMs) * bucketMs;
  const first = last - (buckets - 1) * bucketMs;
  const minutes = Array.from(
    { length: buckets * bucketMinutes },
    (_, index) => first + index * MINUTE_MS,
  );
  const names = [
    ...MINUTE_COUNTS,
    ...MINUTE_GAUGES,
    ...reasons.map((reason) => `refused:${reason}`),
  ];
  const members = names.map((name) => memberOf(name, accountId));
  // One command a minute: on a cluster each minute's key has its own slot.
  const scores = await Promise.all(
    minutes.map((minute) => redis.zmscore(keyOf(keyPrefix, minute), ...members)),
  );
  const points: HistoryPoint[] = Array.from({ length: buckets }, (_, index) => ({
    start: first + index * bucketMs,
    ...(Object.fromEntries([...MINUTE_COUNTS, ...MINUTE_GAUGES].map((name) => [name, 0])) as Record<
      MinuteCountName | MinuteGaugeName,
      number
    >),
  }));
  const refusedByReason: Record<string, number> = Object.fromEntries(
    reasons.map((reason) => [reason, 0]),
  );
  minutes.forEach((_, at) => {
    const point = points[Math.floor(at / bucketMinutes)]!;
    const values = scores[at] ?? [];
    names.forEach((name, index) => {
      const value = Number(values[index] ?? 0);
      if ((MINUTE_GAUGES as readonly string[]).includes(name)) {
        const gauge = name as MinuteGaugeName;
        point[gauge] = Math.max(point[gauge], value);
      } else if ((MINUTE_COUNTS as readonly string[]).includes(name)) {
        point[name as MinuteCountName] += value;
      } else {
        const reason = name.slice('refused:'.length);
        refusedByReason[reason] = (refusedByReason[reason] ?? 0) + value;
      }
    });
  });
  return { points, refusedByReason };
}
