import { createLogger } from '@ingest/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRefusalReport } from './refusal-report.js';

afterEach(() => {
  vi.useRealTimers();
});

function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'info',
    name: 'test',
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}

describe('the refusal report', () => {
  it('writes the first refusal at once, then one line an interval summing up the rest by reason', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { logger, lines } = capturedLogger();
    const report = createRefusalReport({
      logger,
      intervalMs: 1_000,
      context: () => ({ busiest: ['account:x'] }),
    });

    report.refused('over_share');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ refused: { over_share: 1 }, busiest: ['account:x'] });

    for (let i = 0; i < 10_000; i += 1) report.refused(i % 2 === 0 ? 'over_share' : 'rate_limit');
    expect(lines).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ refused: { over_share: 5_000, rate_limit: 5_000 } });

    // Quiet since: nothing more is written, and a flush with nothing counted writes nothing.
    await vi.advanceTimersByTimeAsync(5_000);
    report.flush();
    expect(lines).toHaveLength(2);
  });
});
