import { describe, expect, it } from 'vitest';
import { idBoundaryAt, timeOfBoundary, timeOfId } from './partition-range.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('idBoundaryAt', () => {
  it('puts the moment in the first 48 bits and zeroes the rest', () => {
    const ms = Date.UTC(2026, 10, 23);
    expect(idBoundaryAt(ms)).toMatch(UUID);
    expect(timeOfBoundary(idBoundaryAt(ms))).toBe(ms);
  });

  it('orders ids made before a moment below its boundary and those made at it above', () => {
    const ms = Date.UTC(2026, 10, 23, 12);
    const madeAt = `${idBoundaryAt(ms).slice(0, 14)}7abc-8000-000000000001`;
    expect(timeOfId(madeAt)).toBe(ms);
    expect(madeAt > idBoundaryAt(ms)).toBe(true);
    expect(madeAt < idBoundaryAt(ms + 1)).toBe(true);
  });

  it('bounds a moment before the epoch at the first uuid, not a malformed one', () => {
    const yearOne = Date.parse('0001-01-01T00:00:00Z');
    expect(idBoundaryAt(yearOne)).toBe('00000000-0000-0000-0000-000000000000');
    expect(idBoundaryAt(-1)).toMatch(UUID);
  });

  it('bounds a moment past the 48 bits at the last one', () => {
    expect(idBoundaryAt(2 ** 50)).toBe('ffffffff-ffff-0000-0000-000000000000');
    expect(idBoundaryAt(Date.parse('9999-12-31T23:59:59Z'))).toMatch(UUID);
  });
});
