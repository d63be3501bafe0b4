import { describe, expect, it } from 'vitest';
import { lagSecondsOf } from './metrics.js';

describe('lagSecondsOf', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  const receivedAt = new Date('2026-11-20T12:00:00Z');

  it('counts an event from its acceptance', () => {
    expect(lagSecondsOf({ receivedAt, lastReplayedAt: null }, now)).toBe(4 * 24 * 3_600);
  });

  it('counts a replayed event from its last replay, not from its first acceptance', () => {
    const lastReplayedAt = new Date('2026-11-24T11:59:58Z');
    expect(lagSecondsOf({ receivedAt, lastReplayedAt }, now)).toBe(2);
  });
});
