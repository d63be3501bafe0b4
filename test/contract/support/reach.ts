// What fuzzing an operation must have seen before it may pass. The validator holds every
// answer to the document, but only the answers that come: an operation whose fuzzing
// never gets its success status (ids that do not exist, bodies always refused) passes
// with that status's body never checked at all, whatever the document says of it.
import type { Operation } from './document.js';

/** The success statuses (2xx) an operation declares: each must be answered once at least. */
export const successStatuses = (operation: Operation): number[] =>
  Object.keys(operation.object.responses)
    .filter((status) => /^2\d\d$/.test(status))
    .map(Number);

/** The statuses answered so far, against those that must be. */
export class Reach {
  private readonly seen = new Set<number>();

  constructor(readonly required: readonly number[]) {}

  /** A HEAD answer counts for nothing: it has no body to check. */
  record(method: string, status: number): void {
    if (method !== 'HEAD') this.seen.add(status);
  }

  get missing(): number[] {
    return this.required.filter((status) => !this.seen.has(status));
  }
}

/**
 * Requests sent past the run's own while a required status is still missing, at most:
 * some success answers are rare among fuzzed requests (an idempotent replay, a delete of
 * an id that still exists), and PROPERTY_RUNS may be small while developing.
 */
export const TOP_UP_REQUESTS = 1000;

/** Why an operation fails when a required status never came. */
export const unreachedMessage = (
  name: string,
  missing: number[],
  sent: number,
  tally: string,
): string =>
  `${name}: never answered ${missing.join(', ')} in ${sent} requests (${tally}), so no such ` +
  "answer was held to the document: give the operation's profile (in its test file) real " +
  'ids or valid bodies that reach it';
