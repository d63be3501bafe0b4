// Durations in milliseconds, named once: a bare 60_000 leaves the reader to work out
// whether it is a minute, a timeout that happens to be one, or a coincidence.
export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
