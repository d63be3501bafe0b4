// How fast the service applied events over a long run, read from the database while the
// run goes on: whether one worker kept up, and whether it slowed down as it went.
import type pg from 'pg';
import { finishedCount } from './progress-queries.js';

export interface ApplyPace {
  /** Events applied a second over the first and the last WINDOW_SECONDS of the run. */
  firstPerSecond: number;
  lastPerSecond: number;
  /** Events accepted and not yet applied when the load stopped: the backlog left. */
  backlogAtEnd: number;
  /** The windows compared: a minute, or half the run when it is shorter than two. */
  windowSeconds: number;
}

const SAMPLE_EVERY_MS = 5_000;
const WINDOW_SECONDS = 60;

/**
 * Samples the count of finished events every few seconds until `stop()`, then compares
 * the first window with the last one. The backlog at the end is what was accepted (known
 * to the caller) less what was finished then.
 */
export function followApplyPace(db: pg.Pool) {
  const samples: Array<{ atMs: number; finished: number }> = [];
  const sample = async () => {
    samples.push({ atMs: Date.now(), finished: await finishedCount(db, 'service') });
  };
  const started = sample();
  const timer = setInterval(() => void sample(), SAMPLE_EVERY_MS);
  return {
    async stop(accepted: number): Promise<ApplyPace> {
      clearInterval(timer);
      await started;
      await sample();
      const first = samples[0]!;
      const last = samples.at(-1)!;
      const windowMs = Math.min(WINDOW_SECONDS * 1_000, (last.atMs - first.atMs) / 2);
      const at = (atMs: number) =>
        samples.reduce((best, s) =>
          Math.abs(s.atMs - atMs) < Math.abs(best.atMs - atMs) ? s : best,
        );
      const rate = (from: { atMs: number; finished: number }, to: typeof from) =>
        ((to.finished - from.finished) / (to.atMs - from.atMs)) * 1_000;
      return {
        firstPerSecond: rate(first, at(first.atMs + windowMs)),
        lastPerSecond: rate(at(last.atMs - windowMs), last),
        backlogAtEnd: Math.max(0, accepted - last.finished),
        windowSeconds: Math.round(windowMs / 1_000),
      };
    },
  };
}
