import { randomBytes } from 'node:crypto';
import type { Env } from '@ingest/config';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-database.js';

/** A unique tag for one test file's data: its Redis prefix and its accounts' email domain. */
export const newTestTag = (): string => `t${randomBytes(5).toString('hex')}`;

/**
 * The environment of a test API: the test database, a Redis prefix of the file's own,
 * a random JWT secret, and rate limits high enough that only tests about rate limiting
 * meet them.
 */
export function testEnv(tag: string, overrides: Env = {}): Env {
  return {
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_POOL_SIZE: '5',
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: `test:${tag}`,
    LOG_LEVEL: 'info',
    JWT_SECRET: randomBytes(48).toString('base64'),
    RATE_LIMIT_REGISTER_PER_IP_PER_HOUR: '100000',
    RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '100000',
    RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE: '100000',
    RATE_LIMIT_CONTENT_PER_ACCOUNT_PER_MINUTE: '1000000',
    RATE_LIMIT_RECEIPTS_PER_ACCOUNT_PER_MINUTE: '1000000',
    // Test files share two cores and send bursts: refusing those is not what they test,
    // except the tests about admission control, which turn it on.
    ADMISSION_CONCURRENCY: '0',
    ...overrides,
  };
}
