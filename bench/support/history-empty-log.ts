// The history mode's empty log: a second bench database beside the first, on the same
// PostgreSQL, with an API of its own, which stays without history while the first is
// filled. Both logs are then measured in the same minutes, their steps in turns, so that
// the shared machine's slow spells (its disk's commit flushes above all: the accept path
// waits on them) fall on both alike. Measured one after the other, ten minutes apart, the
// same empty log's accept latency differed by 1.8x between runs.
import { Queue } from 'bullmq';
import type pg from 'pg';
import { cpuMeterOf, createBenchKeys, type BenchEnvironment } from '../bench-environment.js';
import { createBenchDatabase, dropBenchDatabase, siblingDatabaseUrl } from './bench-database.js';
import { dropLegacyPartitions, premakeLive, resetLive } from './history-partitions.js';
import { SERVICE_REDIS_PREFIX, startApi, type RunningHttp } from './launchers.js';

export const EMPTY_LOG_DATABASE_URL = siblingDatabaseUrl('empty');
/** Its API's queue and keys in the same private Redis, apart from the first API's. */
const EMPTY_LOG_REDIS_PREFIX = `${SERVICE_REDIS_PREFIX}-empty`;
/** The service's content queue (packages/queue, CONTENT_EVENTS_QUEUE). */
const CONTENT_QUEUE = 'content-events';

export interface EmptyLog {
  /** The environment as the phases use it, on the empty log's database, API and keys. */
  env: BenchEnvironment;
  stop(): Promise<void>;
}

/**
 * A live reset for the log on `db`: its queue emptied and its live partitions emptied,
 * the history before `liveFromMs` kept. What each capacity step and latency run starts from.
 */
export function liveReset(queue: Queue, db: pg.Pool, liveFromMs: number) {
  return async () => {
    await queue.obliterate({ force: true });
    await resetLive(db, liveFromMs);
  };
}

/** The content queue of the API whose Redis prefix is `prefix`, to empty between steps. */
export const contentQueue = (env: BenchEnvironment, prefix = SERVICE_REDIS_PREFIX) =>
  new Queue(CONTENT_QUEUE, {
    connection: { host: '127.0.0.1', port: env.redis.port },
    prefix: `${prefix}:bull`,
  });

/**
 * Makes the empty log as the first was made (a fresh, migrated database, its legacy
 * partitions dropped, the live ones made), starts its API in the run's process group and
 * makes as many publisher keys over as many accounts as the first has.
 */
export async function startEmptyLog(env: BenchEnvironment, liveFromMs: number): Promise<EmptyLog> {
  const db = await createBenchDatabase(EMPTY_LOG_DATABASE_URL);
  let api: RunningHttp | undefined;
  const queue = contentQueue(env, EMPTY_LOG_REDIS_PREFIX);
  const stop = async () => {
    await api?.proc.stop();
    await queue.close();
    await db.end();
    await dropBenchDatabase(EMPTY_LOG_DATABASE_URL);
  };
  try {
    await dropLegacyPartitions(db);
    await premakeLive(db);
    const stores = {
      ...env.stores,
      databaseUrl: EMPTY_LOG_DATABASE_URL,
      redisPrefix: EMPTY_LOG_REDIS_PREFIX,
    };
    api = await startApi(env.processes, stores, env.options.cpuProfile);
    const accounts = env.accounts.length;
    const made = await createBenchKeys(api.baseUrl, accounts, env.keys.length / accounts);
    return {
      env: {
        ...env,
        db,
        api,
        // Its workers (the drains) on its database and its queue.
        stores,
        keys: made.keys,
        accounts: made.accounts,
        reset: liveReset(queue, db, liveFromMs),
        cpuMeter: cpuMeterOf(db, env.redis, env.cpuHistory),
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
