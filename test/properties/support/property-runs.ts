// How many inputs each property tries. No seed is fixed: every run explores new inputs,
// and fast-check prints the seed and path of a failure so that it can be replayed.
import fc from 'fast-check';

function runsFrom(value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const runs = Number(value);
  if (!Number.isInteger(runs) || runs < 1) {
    throw new Error(`PROPERTY_RUNS must be a positive integer, not "${value}"`);
  }
  return runs;
}

/** Inputs per route: PROPERTY_RUNS, 1000 unless set (the project's requirement). */
export const PROPERTY_RUNS = runsFrom(process.env.PROPERTY_RUNS, 1000);

/**
 * Events of a round-trip property. Each waits for a real worker to apply it, so a fifth
 * of PROPERTY_RUNS (200 by default) keeps the suite within its time budget.
 */
export const ROUND_TRIP_EVENTS = Math.max(1, Math.round(PROPERTY_RUNS / 5));

/** Runs of a regression property: one that pins a bug this suite found, now fixed. */
export const REGRESSION_RUNS = Math.min(PROPERTY_RUNS, 100);

/**
 * Inputs sent at once in one run of a property. Test files run two at a time on the
 * 2-core CI machine (vitest.config.ts); requests in flight together keep PostgreSQL's core busy while this
 * process works, which nearly halves the suite's time.
 */
export const BATCH = 4;

/** Batches of `size` inputs: one run of a property sends a whole batch at once. */
export const batchesOf = <T>(inputs: fc.Arbitrary<T>, size = BATCH): fc.Arbitrary<T[]> =>
  fc.array(inputs, { minLength: size, maxLength: size });

/** fast-check's options for a batched property that tries `inputs` inputs in all. */
export const batchedRuns = (inputs: number, size = BATCH) => ({
  numRuns: Math.ceil(inputs / size),
});

/** A vitest timeout for a property of `inputs` inputs, each costing up to `msPerInput`. */
export const timeoutFor = (inputs: number, msPerInput = 100): number =>
  60_000 + inputs * msPerInput;

/**
 * Runs `check` on every input of a batch at once and waits for all of them, so that a
 * batch never leaves requests running into the next run (or into shrinking); then fails
 * with the first failure, naming its input (fast-check prints the whole batch).
 */
export async function settleAll<T, R>(
  inputs: T[],
  check: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = await Promise.allSettled(inputs.map(check));
  const failed = results.findIndex((result) => result.status === 'rejected');
  if (failed === -1) return results.map((result) => (result as PromiseFulfilledResult<R>).value);
  const reason: unknown = (results[failed] as PromiseRejectedResult).reason;
  const message = reason instanceof Error ? reason.message : String(reason);
  throw new Error(`input ${failed} of the batch, ${fc.stringify(inputs[failed])}: ${message}`, {
    cause: reason,
  });
}

/** settleAll for checks whose values do not matter: what a property's predicate returns. */
export async function checkAll<T>(
  inputs: T[],
  check: (input: T, index: number) => Promise<unknown>,
): Promise<void> {
  await settleAll(inputs, check);
}

/**
 * Environment of a property file's test API: thousands of requests, so only warnings
 * and errors are logged (an info line a request is a measurable share of their cost).
 */
export const PROPERTY_API_ENV = { LOG_LEVEL: 'warn' } as const;
