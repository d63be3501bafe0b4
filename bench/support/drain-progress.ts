// How fast a backlog filled ahead drains, whatever it is a backlog of (content events,
// webhook deliveries): a count of finished items is polled until all are finished or a
// deadline passes. The rate runs from the first poll that saw one finished to the last,
// so the workers' start-up (process, JIT, pools) is left out; `onFirst` lets a caller
// start measuring (CPU) over the same window.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProcessGroup } from '@ingest/test-harness';

const POLL_MS = 200;

export interface DrainProgress {
  /** Items finished a second; NaN when none finished. */
  rate: number;
  seconds: number;
  finished: number;
  /** Items finished within the rate's window (after the first poll that saw one). */
  counted: number;
  /** False when the deadline passed first; `rate` is then over what did finish. */
  complete: boolean;
}

export async function followDrain(
  processes: ProcessGroup,
  total: number,
  finishedSoFar: () => Promise<number>,
  deadlineSeconds: number,
  onFirst?: () => Promise<void>,
): Promise<DrainProgress> {
  const deadline = Date.now() + deadlineSeconds * 1000;
  let first: { at: number; count: number } | undefined;
  let last = { at: performance.now(), count: 0 };
  while (last.count < total && Date.now() < deadline) {
    await sleep(POLL_MS);
    processes.assertNoCrash();
    last = { at: performance.now(), count: await finishedSoFar() };
    if (first === undefined && last.count > 0) {
      await onFirst?.();
      first = last;
    }
  }
  const seconds = first === undefined ? Number.NaN : (last.at - first.at) / 1000;
  return {
    rate: first === undefined ? Number.NaN : (last.count - first.count) / seconds,
    seconds,
    finished: last.count,
    counted: first === undefined ? 0 : last.count - first.count,
    complete: last.count >= total,
  };
}
