import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatEstimate,
  formatLag,
  formatMatches,
  formatPeriod,
  formatRetention,
  formatRoughly,
  shortId,
} from './format';

describe('ids in rows', () => {
  it('differ for ids made in the same millisecond', () => {
    // Two UUID v7 of one millisecond: the same time prefix, different random tails.
    const first = '019ad2c1-5e4f-7a10-8b3c-0f1e2d3c4b5a';
    const second = '019ad2c1-5e4f-7c22-9d4e-a1b2c3d4e5f6';
    expect(shortId(first)).toBe('…2d3c4b5a');
    expect(shortId(first)).not.toBe(shortId(second));
    expect(shortId(null)).toBe('—');
  });
});

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
    // Three figures, as the operator's locale abbreviates them.
    const roughly = (value: number) =>
      `≈ ${new Intl.NumberFormat(undefined, { notation: 'compact', maximumSignificantDigits: 3 }).format(value)}`;
    expect(formatRoughly(36_443)).toBe(roughly(36_400));
    expect(formatRoughly(1_234_567)).toBe(roughly(1_230_000));
  });
});

describe('search counts', () => {
  it('say how many events match, exactly or past the bound, and how many are shown', () => {
    expect(formatMatches({ count: 0, exact: true })).toBe('no events match');
    expect(formatMatches({ count: 1, exact: true })).toBe('1 event matches');
    expect(formatMatches({ count: 3, exact: true })).toBe('3 events match');
    // Thousands are grouped as the operator's locale writes them.
    const bound = (10_000).toLocaleString();
    expect(formatMatches({ count: 10_000, exact: false })).toBe(`more than ${bound} events match`);
    expect(formatMatches({ count: 10_000, exact: false }, 25)).toBe(
      `more than ${bound} events match, 25 shown`,
    );
  });
});

describe('lag', () => {
  it('reads in milliseconds under a second, in seconds and minutes above', () => {
    expect(formatLag(null)).toBe('—');
    expect(formatLag(0.0424)).toBe('42 ms');
    expect(formatLag(2.5)).toBe('2.5 s');
    expect(formatLag(125)).toBe('2 min 5 s');
  });
});
