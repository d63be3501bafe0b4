/**
 * A job whose worker stops renewing its lock (it died, or stopped) is handed to another
 * worker once the lock lapses. BullMQ's default of one such hand-over would fail a job
 * for good after a second death, whatever its attempts; this many are allowed, and the
 * reconcilers queue again any that still end failed this way (their record is unfinished).
 */
export const STALLS_ALLOWED = 5;

/** The consumer's lock and stall settings: the same for content events and deliveries. */
export const lockOptions = (lockDurationMs: number) => ({
  lockDuration: lockDurationMs,
  stalledInterval: lockDurationMs,
  maxStalledCount: STALLS_ALLOWED,
});
