import type { AttemptOutcome } from '@ingest/webhook-delivery';

/**
 * What an attempt's outcome means for its delivery: a 2xx succeeded; a 410 says the
 * receiver is gone for good (the endpoint is disabled); anything else (another status, a
 * refused address, no answer) is tried again on the schedule.
 */
export type Verdict = 'succeeded' | 'gone' | 'retry';

export function verdictOf(outcome: AttemptOutcome): Verdict {
  if (outcome.kind !== 'answered') return 'retry';
  if (outcome.status >= 200 && outcome.status < 300) return 'succeeded';
  return outcome.status === 410 ? 'gone' : 'retry';
}

/** The attempt, said in a line: for the delivery's `error` and the job's failure. */
export function describeOutcome(outcome: AttemptOutcome): string {
  if (outcome.kind === 'answered') {
    return `answered ${outcome.status}${outcome.truncated ? ' (answer truncated)' : ''}`;
  }
  return outcome.kind === 'refused' ? `refused: ${outcome.reason}` : outcome.reason;
}

/** The `outcome` label of an attempt in the delivery metrics. */
export type AttemptLabel = 'succeeded' | 'gone' | 'failed' | 'no_answer' | 'refused';

export function attemptLabelOf(outcome: AttemptOutcome): AttemptLabel {
  if (outcome.kind === 'refused') return 'refused';
  if (outcome.kind === 'failed') return 'no_answer';
  const verdict = verdictOf(outcome);
  return verdict === 'retry' ? 'failed' : verdict;
}
