export interface Repeating {
  /** Stops the rounds; resolves once the one under way, if any, has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `round` every `intervalMs`, counted from the end of the previous round, so rounds
 * never overlap (first at once with `now`). `round` handles its own failures: a rejection
 * is dropped, and the next round runs as planned.
 */
export function repeatEvery(
  intervalMs: number,
  round: () => Promise<void>,
  { now = false } = {},
): Repeating {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = round()
      .catch(() => undefined)
      .finally(schedule);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(run, intervalMs);
    timer.unref();
  };
  if (now) run();
  else schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
