import { z } from 'zod';
import { envInteger, envLogLevel, envUrl } from './env-fields.js';

export const DEFAULT_DATABASE_URL = 'postgresql://postgres:postgres@127.0.0.1:5432/ingest';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Settings every process shares: where PostgreSQL and Redis are, and how much to log. */
export const SharedEnvSchema = z.object({
  DATABASE_URL: envUrl(DEFAULT_DATABASE_URL, ['postgres:', 'postgresql:']),
  DATABASE_POOL_SIZE: envInteger(10, { min: 1, max: 200 }),
  REDIS_URL: envUrl(DEFAULT_REDIS_URL, ['redis:', 'rediss:']),
  /** Prefix of every Redis key this deployment writes; lets environments share a server. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 : _ -')
    .default('ingest'),
  LOG_LEVEL: envLogLevel,
});

export function sharedSettings(env: z.output<typeof SharedEnvSchema>) {
  return {
    database: { url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE },
    redis: { url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX },
    log: { level: env.LOG_LEVEL },
  };
}
