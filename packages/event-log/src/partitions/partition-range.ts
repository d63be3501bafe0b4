/**
 * The event log's partitions are ranges of event ids. Ids are UUIDv7: their first 48 bits
 * are the moment they were made, in milliseconds since the epoch, so the uuid whose first
 * 48 bits are a moment and whose other bits are zero is the boundary between the ids made
 * before it and those made from it on. Partition bounds are such uuids, on a UTC grid.
 */
export type PartitionInterval = 'hour' | 'day' | 'week';

const HOUR = 3_600_000;
export const DAY_MS = 24 * HOUR;
const DAY = DAY_MS;
const WEEK = 7 * DAY;
/** 1970-01-05 was a Monday: weeks start on Mondays, UTC. */
const FIRST_MONDAY = 4 * DAY;

const LENGTH: Record<PartitionInterval, number> = { hour: HOUR, day: DAY, week: WEEK };
const GRID_ORIGIN: Record<PartitionInterval, number> = { hour: 0, day: 0, week: FIRST_MONDAY };

/** The last moment a UUIDv7's 48-bit time can hold (the year 10889). */
const LAST_ID_MS = 2 ** 48 - 1;

/**
 * The uuid that bounds ids made before `ms` from those made at or after it. A moment
 * before the epoch or past the 48 bits bounds at the first or last such uuid: a search
 * `to=0001-01-01` is a valid question (answer: nothing), not a malformed uuid.
 */
export function idBoundaryAt(ms: number): string {
  const clamped = Math.min(Math.max(Math.floor(ms), 0), LAST_ID_MS);
  const hex = clamped.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** When a UUIDv7 was made; undefined for any other uuid, whose bits say nothing of time. */
export function timeOfId(id: string): number | undefined {
  const hex = id.replaceAll('-', '');
  if (hex.length !== 32 || hex[12] !== '7') return undefined;
  return Number.parseInt(hex.slice(0, 12), 16);
}

/** The moment a boundary uuid stands for (the inverse of idBoundaryAt). */
export function timeOfBoundary(boundary: string): number {
  return Number.parseInt(boundary.replaceAll('-', '').slice(0, 12), 16);
}

/** The start of the period that holds `ms`. */
export function periodStart(ms: number, interval: PartitionInterval): number {
  const origin = GRID_ORIGIN[interval];
  const length = LENGTH[interval];
  return origin + Math.floor((ms - origin) / length) * length;
}

/** The first grid boundary after `ms`: where a partition starting at `ms` ends. */
export function nextBoundary(ms: number, interval: PartitionInterval): number {
  return periodStart(ms, interval) + LENGTH[interval];
}

/**
 * A partition's name: the table, `_p`, and its first moment as UTC digits (with the hour
 * for hourly partitions), e.g. `webhook_logs_p20261123`. Sortable, and readable in psql.
 */
export function partitionName(table: string, startMs: number, interval: PartitionInterval): string {
  const iso = new Date(startMs).toISOString();
  const day = iso.slice(0, 10).replaceAll('-', '');
  return interval === 'hour' ? `${table}_p${day}${iso.slice(11, 13)}` : `${table}_p${day}`;
}
