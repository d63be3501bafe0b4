import { describe, expect, it } from 'vitest';
import { firstIdAt, idBounds, msOfId } from './id-bounds.js';

describe('idBounds', () => {
  it('orders ids as PostgreSQL orders uuids, whatever their case', () => {
    const ids = [
      '01a21a4d-4000-7000-8000-00000000000b',
      '01A21A4D-3FFF-7000-8000-000000000000',
      '01a21a4d-4000-7000-8000-0000000000a0',
    ];
    expect(idBounds(ids)).toEqual([
      '01a21a4d-3fff-7000-8000-000000000000',
      '01a21a4d-4000-7000-8000-0000000000a0',
    ]);
  });

  it('refuses no ids, which bound nothing', () => {
    expect(() => idBounds([])).toThrow();
  });

  it('reads and makes the millisecond of a UUIDv7', () => {
    const ms = Date.UTC(2026, 10, 26, 12, 0, 0, 5);
    const first = firstIdAt(ms);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-0000-0000-000000000000$/);
    expect(msOfId(first)).toBe(ms);
    expect(msOfId('01a21a4d-4000-7abc-8def-0123456789ab')).toBe(0x01a21a4d4000);
    expect(firstIdAt(-5)).toBe('00000000-0000-0000-0000-000000000000');
  });
});
