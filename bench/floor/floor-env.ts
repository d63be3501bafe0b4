import type { JobsOptions } from 'bullmq';

/** What the bench runner hands a floor process, read once at start-up. */
export function floorEnv() {
  const read = (name: string): string => {
    const value = process.env[name];
    if (value === undefined || value === '') throw new Error(`${name} is required`);
    return value;
  };
  return {
    databaseUrl: read('DATABASE_URL'),
    redisUrl: read('REDIS_URL'),
    poolSize: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    port: Number(process.env.PORT ?? 0),
    keysJson: process.env.FLOOR_KEYS ?? '{}',
    concurrency: Number(process.env.WORKER_CONCURRENCY ?? 32),
  };
}

/** The service's job options (packages/queue job-registry), so queue costs are alike. */
export const FLOOR_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 3_600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3_600, count: 100_000 },
};
