// Dates, ages and durations as operators read them: local time, short units.

const time = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});

const clock = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});

const hourMinute = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});

export const formatHourMinute = (date: Date): string => hourMinute.format(date);

/** The time of day only, for "updated at" notes. */
export const formatClock = (date: Date): string => clock.format(date);

export const formatTime = (iso: string | null): string =>
  iso === null ? '—' : time.format(new Date(iso));

export function formatSeconds(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.floor(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** A lag: milliseconds under a second (a queue keeping up is that fast), else as formatSeconds. */
export function formatLag(seconds: number | null): string {
  if (seconds === null) return '—';
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : formatSeconds(seconds);
}

/** Milliseconds between two instants, or a dash while one is missing. */
export function formatBetween(start: string | null, end: string | null): string {
  if (start === null || end === null) return '—';
  const ms = Date.parse(end) - Date.parse(start);
  return ms < 1000 ? `${ms} ms` : formatSeconds(ms / 1000);
}

/**
 * An id as a row shows it: its last 8 characters. Ids are time-ordered (UUID v7), so their
 * first characters are the same for everything made within a minute; their last are random.
 */
export const shortId = (id: string | null): string => (id === null ? '—' : `…${id.slice(-8)}`);

export const json = (value: unknown): string => JSON.stringify(value, null, 2) ?? 'null';

/** A `datetime-local` input's value (local time) as ISO 8601, or undefined when empty. */
export function localInputToIso(value: string): string | undefined {
  if (value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** A size in binary units, three significant figures at most: `840 KiB`, `1.52 GiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = unit === 0 || value >= 100 ? value.toFixed(0) : value.toPrecision(3);
  return `${shown} ${BYTE_UNITS[unit]}`;
}

/** `YYYY-MM-DD HH:mm` in UTC, the grid partitions are cut on. */
const utcMinute = (iso: string): string => iso.slice(0, 16).replace('T', ' ');

/** A partition's id range in UTC; `from` is null for the one open below. */
export const formatPeriod = (from: string | null, to: string): string =>
  `${from === null ? '…' : utcMinute(from)} → ${utcMinute(to)}`;

export const formatRetention = (days: number): string =>
  days === 0 ? 'kept forever' : `${days} day${days === 1 ? '' : 's'}`;

/** The planner's row estimate: approximate by nature, unknown until analysed. */
export const formatEstimate = (rows: number | null): string =>
  rows === null ? '—' : `≈ ${rows.toLocaleString()}`;

const compact = new Intl.NumberFormat(undefined, {
  notation: 'compact',
  maximumSignificantDigits: 3,
});

/** An estimate where room is short: three significant figures, `≈ 36.4K`. */
export const formatRoughly = (value: number): string => `≈ ${compact.format(value)}`;

/**
 * What a search's count says: how many events match, and how many of them the rows show
 * while more pages remain (`shown`).
 */
export function formatMatches(matches: { count: number; exact: boolean }, shown?: number): string {
  const { count, exact } = matches;
  if (count === 0) return 'no events match';
  const what = `${exact ? '' : 'more than '}${count.toLocaleString()} event`;
  const said = count === 1 && exact ? `${what} matches` : `${what}s match`;
  return shown === undefined ? said : `${said}, ${shown.toLocaleString()} shown`;
}
