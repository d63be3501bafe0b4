import { describe, expect, it } from 'vitest';
import { newEventId } from './event-ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newEventId', () => {
  it('gives distinct, strictly increasing UUIDv7s across pool refills', () => {
    // 2,000 ids: the 4 KB pool is refilled seven times, mostly within one millisecond.
    const ids = Array.from({ length: 2_000 }, () => newEventId());
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('carries the current time in its first 48 bits', () => {
    const before = Date.now();
    const id = newEventId();
    const msecs = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(msecs).toBeGreaterThanOrEqual(before);
    expect(msecs).toBeLessThanOrEqual(Date.now() + 1);
  });
});
