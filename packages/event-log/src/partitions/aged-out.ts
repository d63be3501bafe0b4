import { DAY_MS, timeOfId } from './partition-range.js';

/**
 * Whether an event id the log does not hold may have aged out of it: a UUIDv7 made before
 * the retention cut-off (every partition dropped lies wholly before it). Decided from the
 * id alone, so the answer says nothing of whose event it was, or whether there was one.
 * With retention off (0) nothing ages out.
 */
export function mayHaveAgedOut(id: string, retentionDays: number, now = Date.now()): boolean {
  const madeAt = timeOfId(id);
  return retentionDays > 0 && madeAt !== undefined && madeAt < now - retentionDays * DAY_MS;
}
