import { describe, expect, it } from 'vitest';
import { CLOCK_MARGIN_MS, idWindows, newestFirst, pageSettled } from './newest-first.js';

const DAY = 86_400_000;
const at = (iso: string) => Date.parse(iso);

describe('idWindows', () => {
  const now = at('2026-11-23T15:00:00Z');

  it('reads the newest day, the day before, the rest of the week before it, then everything older', () => {
    expect(idWindows('day', now)).toEqual([
      { fromMs: at('2026-11-23T00:00:00Z') },
      { fromMs: at('2026-11-22T00:00:00Z'), beforeMs: at('2026-11-23T00:00:00Z') },
      { fromMs: at('2026-11-16T00:00:00Z'), beforeMs: at('2026-11-22T00:00:00Z') },
      { beforeMs: at('2026-11-16T00:00:00Z') },
    ]);
  });

  it('starts a day earlier just after midnight, where the newest day holds nothing settled', () => {
    const [first] = idWindows('day', at('2026-11-23T00:10:00Z'));
    expect(first).toEqual({ fromMs: at('2026-11-22T00:00:00Z') });
  });

  it('starts at an upper bound (a to or a cursor) and never reaches below a floor', () => {
    const upper = at('2026-11-03T11:00:00Z') + CLOCK_MARGIN_MS;
    const floor = at('2026-11-03T10:00:00Z') - CLOCK_MARGIN_MS;
    expect(idWindows('day', now, upper, floor)).toEqual([{ fromMs: floor, beforeMs: upper }]);
    const weekFloor = at('2026-10-30T00:00:00Z');
    expect(idWindows('day', now, upper, weekFloor)).toEqual([
      { fromMs: at('2026-11-03T00:00:00Z'), beforeMs: upper },
      { fromMs: at('2026-11-02T00:00:00Z'), beforeMs: at('2026-11-03T00:00:00Z') },
      { fromMs: weekFloor, beforeMs: at('2026-11-02T00:00:00Z') },
    ]);
  });

  it('never starts above the present, whatever the upper bound', () => {
    expect(idWindows('day', now, now + 40 * DAY)[0]).toEqual({
      fromMs: at('2026-11-23T00:00:00Z'),
      beforeMs: now + 40 * DAY,
    });
  });

  it('follows the partition grid: hours and Monday weeks', () => {
    expect(idWindows('hour', now)[2]).toEqual({
      fromMs: at('2026-11-23T07:00:00Z'),
      beforeMs: at('2026-11-23T13:00:00Z'),
    });
    expect(idWindows('week', now)[0]).toEqual({ fromMs: at('2026-11-23T00:00:00Z') });
  });
});

describe('pageSettled', () => {
  const row = (iso: string, id = '01a20000-0000-7000-8000-000000000000') => ({
    id,
    receivedAt: new Date(iso),
  });
  const readFrom = at('2026-11-23T00:00:00Z');

  it('settles a full page received a margin after the window start', () => {
    const rows = [
      row('2026-11-23T09:00:00Z'),
      row('2026-11-23T08:00:00Z'),
      row('2026-11-23T01:00:00Z'),
    ];
    expect(pageSettled(rows, 2, readFrom)).toBe(true);
  });

  it('does not settle while a row of the page may be preceded by one not read', () => {
    const rows = [
      row('2026-11-23T09:00:00Z'),
      row('2026-11-23T00:59:59Z'),
      row('2026-11-23T00:30:00Z'),
    ];
    expect(pageSettled(rows, 2, readFrom)).toBe(false);
  });

  it('does not settle a short page: older windows may hold the rest', () => {
    expect(pageSettled([row('2026-11-23T09:00:00Z')], 2, readFrom)).toBe(false);
  });

  it('settles anything once the log has been read to its start', () => {
    expect(pageSettled([], 20, undefined)).toBe(true);
  });
});

describe('newestFirst', () => {
  it('orders by receipt time, then id, both descending', () => {
    const a = { id: '01a20000-0000-7000-8000-00000000000a', receivedAt: new Date(2) };
    const b = { id: '01a20000-0000-7000-8000-00000000000b', receivedAt: new Date(2) };
    const c = { id: '01a20000-0000-7000-8000-00000000000c', receivedAt: new Date(1) };
    expect([c, a, b].sort(newestFirst)).toEqual([b, a, c]);
  });
});
