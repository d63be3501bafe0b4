import { describe, expect, it } from 'vitest';
import { ConfigError, loadApiConfig, loadWorkerConfig } from './index.js';

const SECRET = 's'.repeat(32);

const problemsOf = (load: () => unknown): string[] => {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('the bounds of an account retention', () => {
  it('are 1 to 3650 days by default, beside the default retention', () => {
    expect(loadWorkerConfig({}).eventLog).toMatchObject({
      retentionDays: 30,
      retentionBounds: { minDays: 1, maxDays: 3_650 },
    });
    const api = loadApiConfig({
      JWT_SECRET: SECRET,
      EVENT_LOG_RETENTION_MIN_DAYS: '7',
      EVENT_LOG_RETENTION_MAX_DAYS: '2555',
    });
    expect(api.eventLog.retentionBounds).toEqual({ minDays: 7, maxDays: 2_555 });
  });

  it('hold the default between them, unless the default keeps everything', () => {
    expect(problemsOf(() => loadWorkerConfig({ EVENT_LOG_RETENTION_DAYS: '5000' }))).toEqual([
      expect.stringMatching(/^EVENT_LOG_RETENTION_DAYS must be 0 .* \(1 to 3650\); it is 5000$/),
    ]);
    expect(problemsOf(() => loadWorkerConfig({ EVENT_LOG_RETENTION_MIN_DAYS: '31' }))).toEqual([
      expect.stringMatching(/^EVENT_LOG_RETENTION_DAYS must be 0 .* \(31 to 3650\); it is 30$/),
    ]);
    const keepAll = loadWorkerConfig({
      EVENT_LOG_RETENTION_DAYS: '0',
      EVENT_LOG_RETENTION_MIN_DAYS: '31',
    });
    expect(keepAll.eventLog).toMatchObject({
      retentionDays: 0,
      retentionBounds: { minDays: 31, maxDays: 3_650 },
    });
  });

  it('refuse a minimum above the maximum, and are listed with every other problem', () => {
    expect(
      problemsOf(() =>
        loadWorkerConfig({ EVENT_LOG_RETENTION_MIN_DAYS: '10', EVENT_LOG_RETENTION_MAX_DAYS: '5' }),
      ),
    ).toEqual([
      'EVENT_LOG_RETENTION_MIN_DAYS must not exceed EVENT_LOG_RETENTION_MAX_DAYS (10 > 5)',
    ]);
    const problems = problemsOf(() =>
      loadWorkerConfig({ EVENT_LOG_RETENTION_DAYS: '5000', WORKER_CONCURRENCY: 'many' }),
    );
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/WORKER_CONCURRENCY/);
    expect(problems.join('\n')).toMatch(/EVENT_LOG_RETENTION_DAYS/);
    expect(problemsOf(() => loadWorkerConfig({ EVENT_LOG_RETENTION_MIN_DAYS: '0' }))).toEqual([
      expect.stringMatching(/^EVENT_LOG_RETENTION_MIN_DAYS /),
    ]);
  });
});
