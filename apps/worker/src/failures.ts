import { isAppError, type EventError } from '@ingest/contracts';

const CODE_REASONS: Array<[RegExp, string]> = [
  [
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|57P0[123]|08\d{3}|P1001|P1002|P1017)$/,
    'the database was unreachable',
  ],
  [/^(57014|P1008|P2024)$/, 'the database timed out'],
  [/^(40001|40P01|P2034)$/, 'it conflicted with a concurrent change'],
];

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (
    let current = error, depth = 0;
    current !== undefined && current !== null && depth < 5;
    depth += 1
  ) {
    const { code, cause, meta } = current as {
      code?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } };
    };
    if (typeof code === 'string') codes.push(code);
    const original = meta?.driverAdapterError?.cause?.originalCode;
    if (typeof original === 'string') codes.push(original);
    current = cause;
  }
  return codes;
}

/**
 * What a receipt says about an attempt that failed for a reason outside the event. It
 * is shown to the publisher, so it names a kind of failure and never the raw message
 * (which may hold SQL or hostnames); the worker's log has the details.
 */
export function transientFailureReason(error: unknown): string {
  for (const code of codesOf(error)) {
    for (const [pattern, reason] of CODE_REASONS) if (pattern.test(code)) return reason;
  }
  return 'of an internal error';
}

export function eventErrorOf(error: unknown, attempt: number, final: boolean): EventError {
  if (isAppError(error)) {
    return {
      code: error.code,
      message: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
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
