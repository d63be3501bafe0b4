import { runTsEntry } from '@ingest/test-harness';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './support/test-database.js';

// Nothing listens on port 9 (discard) on these machines: connections are refused at once.
const DEAD_POSTGRES = 'postgresql://postgres:secret-pw@127.0.0.1:9/ingest';
const DEAD_REDIS = 'redis://127.0.0.1:9';
const GOOD_ENV = {
  DATABASE_URL: TEST_DATABASE_URL,
  REDIS_URL: TEST_REDIS_URL,
  JWT_SECRET: 'k'.repeat(40),
  PORT: '0',
};

const APPS = [
  ['api', 'apps/api/src/server.ts'],
  ['worker', 'apps/worker/src/main.ts'],
] as const;

describe.each(APPS)('starting the %s', (name, entry) => {
  it('with PostgreSQL unreachable prints one clear line and exits non-zero', async () => {
    const result = await runTsEntry(entry, { env: { ...GOOD_ENV, DATABASE_URL: DEAD_POSTGRES } });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${name}: cannot start: PostgreSQL at postgresql://postgres:\\*\\*\\*@127\\.0\\.0\\.1:9/ingest is not answering \\(ECONNREFUSED\\)`,
      ),
    );
    expect(result.stderr).not.toContain('secret-pw');
  });

  it('with Redis unreachable prints one clear line and exits non-zero', async () => {
    const result = await runTsEntry(entry, { env: { ...GOOD_ENV, REDIS_URL: DEAD_REDIS } });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${name}: cannot start: Redis at redis://127\\.0\\.0\\.1:9 is not answering \\(ECONNREFUSED\\)`,
      ),
    );
  });
});

describe('starting the api with a bad configuration', () => {
  it('lists every problem in one message and exits non-zero', async () => {
    const result = await runTsEntry('apps/api/src/server.ts', {
      env: { ...GOOD_ENV, JWT_SECRET: 'too-short', PORT: 'eighty', DATABASE_URL: 'mysql://x' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid configuration');
    expect(result.stderr).toContain('JWT_SECRET must be at least 32 bytes');
    expect(result.stderr).toContain('PORT must be a whole number');
    expect(result.stderr).toContain('DATABASE_URL must start with postgres:// or postgresql://');
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('refuses to start without a JWT secret unless the development setting allows it', async () => {
    const { JWT_SECRET: _unused, ...withoutSecret } = GOOD_ENV;
    const result = await runTsEntry('apps/api/src/server.ts', {
      env: { ...withoutSecret, JWT_SECRET: '' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('JWT_SECRET is required');
  });
});
