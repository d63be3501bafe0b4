import { describe, expect, it } from 'vitest';
import { attemptLabelOf, describeOutcome, verdictOf } from './delivery-verdict.js';

const answered = (status: number, truncated = false) =>
  ({ kind: 'answered', status, body: '', truncated, latencyMs: 3 }) as const;

describe('verdictOf', () => {
  it('takes any 2xx as a success, a 410 as gone, and everything else as worth another try', () => {
    expect([200, 201, 204, 299].map((status) => verdictOf(answered(status)))).toEqual(
      Array(4).fill('succeeded'),
    );
    expect(verdictOf(answered(410))).toBe('gone');
    expect([301, 302, 400, 404, 429, 500, 503].map((s) => verdictOf(answered(s)))).toEqual(
      Array(7).fill('retry'),
    );
    expect(verdictOf({ kind: 'failed', reason: 'ECONNREFUSED', latencyMs: 1 })).toBe('retry');
    expect(verdictOf({ kind: 'refused', reason: 'loopback', latencyMs: 0 })).toBe('retry');
  });

  it('says what happened in a line', () => {
    expect(describeOutcome(answered(500, true))).toBe('answered 500 (answer truncated)');
    expect(
      describeOutcome({ kind: 'refused', reason: 'x is a private address', latencyMs: 0 }),
    ).toBe('refused: x is a private address');
  });
});

describe('attemptLabelOf', () => {
  it('labels an attempt for the metrics', () => {
    expect(attemptLabelOf(answered(204))).toBe('succeeded');
    expect(attemptLabelOf(answered(410))).toBe('gone');
    expect(attemptLabelOf(answered(302))).toBe('failed');
    expect(attemptLabelOf({ kind: 'failed', reason: 'timeout', latencyMs: 1 })).toBe('no_answer');
    expect(attemptLabelOf({ kind: 'refused', reason: 'loopback', latencyMs: 0 })).toBe('refused');
  });
});
