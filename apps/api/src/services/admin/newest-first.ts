import { HOUR_MS } from '@ingest/contracts';
import { periodStart, type PartitionInterval } from '@ingest/event-log';

/**
 * How far an event's id time (the API's clock, when it accepted the call) may be from its
 * `received_at` (the database's clock, when the row was written): generous, as the bound
 * only needs to hold, not to be tight.
 */
export const CLOCK_MARGIN_MS = HOUR_MS;

/**
 * A range of event ids, as moments: ids made at or after `fromMs` (none: no lower bound)
 * and before `beforeMs` (none: no upper bound).
 */
export interface IdWindow {
  fromMs?: number;
  beforeMs?: number;
}

/**
 * How many periods each window after the first spans: the period before it, then the
 * rest of a week of daily partitions; everything older is the last window.
 */
const LATER_WINDOW_PERIODS = [1, 6];

/**
 * The windows a newest-first page is read through, newest first: the period holding the
 * newest possible match, the period before it, the rest of the week before that, then
 * everything older.
 *
 * A query over every partition pays for each one, in planning and an index descent, even
 * when the newest partition alone fills the page, as it usually does; a rarer filter is
 * filled by the period before it. No page costs more than four queries. `upperMs` is the
 * newest a match can be (a `to` bound or a cursor, with the clock margin); `floorMs` the
 * oldest (a `from` bound, with the margin): no window reaches past it.
 */
export function idWindows(
  interval: PartitionInterval,
  now: number,
  upperMs?: number,
  floorMs?: number,
): IdWindow[] {
  // The newest match was made before `upperMs` and, as far as clocks go, before now.
  // Settled rows are those received a margin after their window's start (pageSettled),
  // so the first window starts two margins back: otherwise, just after midnight, it
  // would hold nothing settled and cost a query for nothing.
  const newest = Math.min(upperMs ?? Number.POSITIVE_INFINITY, now + CLOCK_MARGIN_MS);
  const starts = [periodStart(newest - 2 * CLOCK_MARGIN_MS, interval)];
  for (const periods of LATER_WINDOW_PERIODS) {
    let from = starts.at(-1) ?? 0;
    for (let i = 0; i < periods; i += 1) from = periodStart(from - 1, interval);
    starts.push(from);
  }
  const windows: IdWindow[] = [];
  let beforeMs = upperMs;
  for (const fromMs of starts) {
    if (floorMs !== undefined && fromMs <= floorMs) break;
    windows.push(beforeMs === undefined ? { fromMs } : { fromMs, beforeMs });
    beforeMs = fromMs;
  }
  windows.push({
    ...(floorMs === undefined ? {} : { fromMs: floorMs }),
    ...(beforeMs === undefined ? {} : { beforeMs }),
  });
  return windows;
}

interface Positioned {
  id: string;
  receivedAt: Date;
}

/** Newest first, as the search orders: received_at, then id, both descending. */
export function newestFirst(a: Positioned, b: Positioned): number {
  const byTime = b.receivedAt.getTime() - a.receivedAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * Whether the first `limit` of `rows` (sorted newest first, all matches with ids in the
 * windows read so far) are the page, plus whether there is a next one. Every match not
 * read has an id made before `readFromMs`, so it was received before `readFromMs` plus the
 * clock margin: a row received at or after that is surely ahead of it.
 */
export function pageSettled(rows: Positioned[], limit: number, readFromMs?: number): boolean {
  if (readFromMs === undefined) return true;
  const last = rows[limit - 1];
  return (
    rows.length > limit &&
    last !== undefined &&
    last.receivedAt.getTime() >= readFromMs + CLOCK_MARGIN_MS
  );
}
