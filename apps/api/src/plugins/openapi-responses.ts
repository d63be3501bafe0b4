// How routes declare what they answer: success bodies with their media type, description
// and headers, and the problems they can answer. What every operation shares (x-request-
// id, 400, 500, admission control's 429 and 503, 401 where authenticated, 413/415 where a
// body can come) is added to the document in one place (plugins/openapi.ts), from the
// same facts.
import {
  ERROR_CODES,
  PROBLEM_CONTENT_TYPE,
  ProblemSchema,
  type ErrorCode,
} from '@ingest/contracts';
import type { z } from 'zod';

type HeaderSchema = { type: 'string' | 'integer'; description: string };
export type ResponseHeaders = Record<string, HeaderSchema>;

const header = (type: HeaderSchema['type'], description: string): HeaderSchema => ({
  type,
  description,
});

/** Response headers the API sends, as the document names them (lower case, as sent). */
export const HEADERS = {
  location: { location: header('string', 'Where the created resource can be read') },
  rateLimit: {
    'ratelimit-limit': header('integer', 'Requests allowed in the window'),
    'ratelimit-remaining': header('integer', 'Requests left in the window'),
    'ratelimit-reset': header('integer', 'Seconds until the window resets'),
  },
  retryAfter: { 'retry-after': header('integer', 'Seconds to wait before trying again') },
  allow: { allow: header('string', 'The methods this path takes') },
  setCookie: { 'set-cookie': header('string', 'The operators session cookie (ingest_admin)') },
} satisfies Record<string, ResponseHeaders>;

/** A JSON body: its schema, what it means, and the headers that come with it. */
export const json = <Schema extends z.ZodType>(
  schema: Schema,
  description: string,
  headers: ResponseHeaders = {},
) => ({ description, content: { 'application/json': { schema } }, headers });

/** No body at all (a 204, or a 202 with nothing more to say). */
export const empty = (description: string, headers: ResponseHeaders = {}) => ({
  description,
  content: {},
  headers,
});

/** Headers particular problems carry. */
const PROBLEM_HEADERS: Partial<Record<number, ResponseHeaders>> = {
  // Every 401 says how to authenticate (RFC 9110), a wrong password at login included.
  401: { 'www-authenticate': header('string', 'The schemes this operation takes') },
  405: HEADERS.allow,
  409: { 'retry-after': header('integer', 'With IDEMPOTENCY_KEY_IN_USE: when to retry') },
  429: { ...HEADERS.retryAfter, ...HEADERS.rateLimit },
  503: HEADERS.retryAfter,
};

/** The headers a problem of this status carries, besides those of its operation. */
export const problemHeaders = (status: number): ResponseHeaders => PROBLEM_HEADERS[status] ?? {};

/** The problem document (application/problem+json) a route answers with, for each status. */
export function problems<const Status extends number>(...statuses: Status[]) {
  return Object.fromEntries(statuses.map((status) => [status, problem(status)])) as Record<
    Status,
    ReturnType<typeof problem>
  >;
}

export function problem(status: number, headers: ResponseHeaders = {}) {
  const codes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
    (code) => ERROR_CODES[code].status === status,
  );
  return {
    description: `Error: ${codes.join(', ') || 'see the code'}`,
    content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
    headers: { ...problemHeaders(status), ...headers },
  };
}
