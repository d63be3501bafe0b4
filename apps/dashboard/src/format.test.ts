import { describe, expect, it } from 'vitest';
import { formatBytes, formatEstimate, formatPeriod, formatRetention } from './format';

describe('storage figures', () => {
  it('show sizes in binary units, three figures at most', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(8192)).toBe('8.00 KiB');
    expect(formatBytes(950_272)).toBe('928 KiB');
    expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.50 GiB');
    expect(formatBytes(3 * 1024 ** 5)).toBe('3072 TiB');
  });

  it('show a partition range in UTC, open below for the legacy one', () => {
    expect(formatPeriod('2026-11-23T00:00:00.000Z', '2026-11-24T00:00:00.000Z')).toBe(
      '2026-11-23 00:00 → 2026-11-24 00:00',
    );
    expect(formatPeriod(null, '2026-11-24T00:00:00.000Z')).toBe('… → 2026-11-24 00:00');
  });

  it('say when retention keeps everything, and when rows were never estimated', () => {
    expect(formatRetention(0)).toBe('kept forever');
    expect(formatRetention(1)).toBe('1 day');
    expect(formatRetention(30)).toBe('30 days');
    expect(formatEstimate(null)).toBe('—');
    expect(formatEstimate(0)).toBe('≈ 0');
  });
});
