import { isAppError, type EventError } from '@ingest/contracts';
import { databaseFailureOf } from '@ingest/db';

const REASONS = {
  unreachable: 'the database was unreachable',
  timeout: 'the database timed out',
  conflict: 'it conflicted with a concurrent change',
} as const;

/**
 * What a receipt says about an attempt that failed for a reason outside the event. It
 * is shown to the publisher, so it names a kind of failure and never the raw message
 * (which may hold SQL or hostnames); the worker's log has the details.
 */
export function transientFailureReason(error: unknown): string {
  const failure = databaseFailureOf(error);
  return failure === undefined ? 'of an internal error' : REASONS[failure];
}

export function eventErrorOf(error: unknown, attempt: number, final: boolean): EventError {
  if (isAppError(error)) {
    const { currentVersion } = error.extensions;
    return {
      code: error.code,
      message: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
      ...(typeof currentVersion === 'number' ? { currentVersion } : {}),
    };
  }
  const reason = transientFailureReason(error);
  return final
    ? {
        code: 'PROCESSING_FAILED',
        message: `Gave up after attempt ${attempt}: it failed because ${reason}`,
      }
    : {
        code: 'PROCESSING_FAILED',
        message: `Attempt ${attempt} failed because ${reason}; it will be retried`,
      };
}
