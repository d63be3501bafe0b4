// `pnpm test`'s first step (scripts/test-prerequisites.mjs): on a machine that lacks a
// program the tests start, it stops at once with one line that names what to install,
// instead of failing halfway through the run.
import { runCommand } from '@ingest/test-harness';
import { describe, expect, it } from 'vitest';

const check = (env: Record<string, string>) =>
  runCommand(process.execPath, ['scripts/test-prerequisites.mjs'], {
    env: { TEST_PREREQUISITES_INSTALL: 'never', ...env },
  });

describe("pnpm test's prerequisites", () => {
  it('pass on this machine, which has them all', async () => {
    const { code, stdout, stderr } = await check({});
    expect(code, stderr).toBe(0);
    expect(stdout + stderr).toBe('');
  });

  it('stop at once with one line when Chromium is not where CHROMIUM_PATH says', async () => {
    const { code, stderr } = await check({ CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^test: Chromium at \/nonexistent\/chromium is missing .*CHROMIUM_PATH/,
      ),
    ]);
  });

  it('name every missing program, and the command that installs each, in that one line', async () => {
    // A PATH without /usr/sbin (pgbouncer) nor the Redis programs' directory.
    const { code, stderr } = await check({ PATH: '/nonexistent', CHROMIUM_PATH: '/nonexistent' });
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/apt-get install pgbouncer/);
    expect(lines[0]).toMatch(/apt-get install redis-server redis-tools/);
  });
});
