import type { components } from './generated/openapi.js';

type Problem = components['schemas']['Problem'];

/** One field the service refused, as the problem document's `errors` lists them. */
export interface FieldError {
  path: string;
  message: string;
}

/** What a failed call's answer told, or could not tell. */
export interface IngestErrorDetails {
  /** HTTP status; 0 when no answer came (the network failed, or the call was aborted). */
  status: number;
  /** The problem document's code (`VALIDATION_FAILED`, `RATE_LIMITED`, ...), or `HTTP_ERROR` / `NETWORK_ERROR` when the body had none. */
  code: Problem['code'] | 'HTTP_ERROR' | 'NETWORK_ERROR';
  message: string;
  /** The request id to quote to an operator: from the body, else the x-request-id header. */
  requestId?: string;
  errors?: FieldError[];
  /** How many times the call was sent. */
  attempts?: number;
}

/**
 * Every failure of a call, as one class. Any answer that is not 2xx is a failure; its
 * message is the body's `message` when the body is JSON and has one, else a generic one
 * (a proxy's HTML 502 page says nothing a program should show).
 */
export class IngestError extends Error {
  readonly status: number;
  readonly code: IngestErrorDetails['code'];
  readonly requestId: string | undefined;
  readonly errors: FieldError[];
  readonly attempts: number;

  constructor(details: IngestErrorDetails, options?: { cause?: unknown }) {
    super(details.message, options);
    this.name = 'IngestError';
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
    this.errors = details.errors ?? [];
    this.attempts = details.attempts ?? 1;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const fieldErrorsOf = (value: unknown): FieldError[] =>
  Array.isArray(value)
    ? value.flatMap((entry) =>
        isRecord(entry) && typeof entry.path === 'string' && typeof entry.message === 'string'
          ? [{ path: entry.path, message: entry.message }]
          : [],
      )
    : [];

/** The generic message of a status, for bodies that say nothing usable. */
export const genericMessage = (status: number): string =>
  `The service answered ${status} without a readable error`;

/**
 * An IngestError from a non-2xx answer and its body: JSON text, text, or already parsed.
 * `attempts` is how many times the call was sent.
 */
export function errorFromAnswer(
  response: Pick<Response, 'status' | 'headers'>,
  body: unknown,
  attempts = 1,
): IngestError {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
  }
  const problem = isRecord(parsed) ? parsed : {};
  const message =
    typeof problem.message === 'string' && problem.message !== ''
      ? problem.message
      : genericMessage(response.status);
  const requestId =
    (typeof problem.requestId === 'string' ? problem.requestId : undefined) ??
    response.headers.get('x-request-id') ??
    undefined;
  return new IngestError({
    status: response.status,
    code: typeof problem.code === 'string' ? (problem.code as Problem['code']) : 'HTTP_ERROR',
    message,
    ...(requestId === undefined ? {} : { requestId }),
    errors: fieldErrorsOf(problem.errors),
    attempts,
  });
}
