/**
 * Every error the API can answer with. The code is the stable name clients branch on;
 * status and title go into the problem document. Codes are part of the public contract:
 * add new ones, never rename or reuse one.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: { status: 400, title: 'The request is not valid' },
  INVALID_JSON: { status: 400, title: 'The body is not valid JSON' },
  UNKNOWN_EVENT: { status: 400, title: 'The event is not one this service handles' },
  UNAUTHENTICATED: { status: 401, title: 'Authentication is required' },
  INVALID_CREDENTIALS: { status: 401, title: 'Email or password is wrong' },
  SIGNATURE_REQUIRED: { status: 401, title: 'This API key requires signed requests' },
  SIGNATURE_INVALID: {
    status: 401,
    title: "The request signature does not match the key's signing secret",
  },
  SIGNATURE_EXPIRED: {
    status: 401,
    title: 'The request signature timestamp is more than 5 minutes from now',
  },
  FORBIDDEN: { status: 403, title: 'Not allowed' },
  INSUFFICIENT_SCOPE: { status: 403, title: 'The API key lacks the scope this needs' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  ARTICLE_NOT_FOUND: { status: 404, title: 'No such article of yours' },
  HIGHLIGHT_NOT_FOUND: { status: 404, title: 'No such highlight of yours' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  REQUEST_TIMEOUT: { status: 408, title: 'The request took too long to arrive' },
  EMAIL_TAKEN: { status: 409, title: 'The email is already registered' },
  HANDLE_TAKEN: { status: 409, title: 'The handle is already taken' },
  KEY_QUOTA_EXCEEDED: { status: 409, title: 'Too many active API keys' },
  ENDPOINT_QUOTA_EXCEEDED: { status: 409, title: 'Too many webhook endpoints' },
  SLUG_TAKEN: { status: 409, title: 'The slug is already taken' },
  VERSION_CONFLICT: { status: 409, title: 'The record is not at the version the event expects' },
  EVENT_NOT_RETRYABLE: { status: 409, title: 'Only failed events can be retried' },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    title: 'A request with this Idempotency-Key is in progress',
  },
  EVENT_EXPIRED: {
    status: 410,
    title: "The event is older than the event log keeps its account's events",
  },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'The body is too large' },
  URI_TOO_LONG: { status: 414, title: 'The URL is too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'The body must be application/json' },
  IDEMPOTENCY_KEY_MISMATCH: {
    status: 422,
    title: 'The Idempotency-Key was used with a different request',
  },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  HEADERS_TOO_LARGE: { status: 431, title: 'The request headers are too large' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  PROCESSING_FAILED: { status: 500, title: 'The event could not be applied' },
  UNAVAILABLE: { status: 503, title: 'The service is temporarily unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);

/** The problem type URI of a code, relative to the service: `/problems/validation-failed`. */
export const problemTypeOf = (code: ErrorCode): string =>
  `/problems/${code.toLowerCase().replaceAll('_', '-')}`;
