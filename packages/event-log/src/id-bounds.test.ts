import { describe, expect, it } from 'vitest';
import { idBounds } from './id-bounds.js';

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
});
