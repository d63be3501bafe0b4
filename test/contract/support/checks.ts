// What every answer must be, whatever was asked (README, "API" and "Errors"): never a 5xx;
// an error is problem+json with `requestId` equal to the `x-request-id` header; a 401 says
// how to authenticate; and the answer is one the document gives for the operation (the
// validator decides, not expectations written here).
import { methodsOfConcretePath, type OpenApiDocument } from './document.js';
import type { FuzzRequest } from './requests.js';
import {
  mediaTypeOf,
  type ContractValidator,
  type ObservedResponse,
  type Violation,
} from './validator.js';

/** What the answer is held to. */
export type Target =
  /** A documented operation (a HEAD is held to the path's GET). */
  | { kind: 'operation'; method: string; path: string }
  /** A method the document does not list for a documented path (concrete, as sent). */
  | { kind: 'method-not-allowed'; path: string }
  /** A path the document does not have. `wellFormed`: a 404 is owed (see the test). */
  | { kind: 'unknown-path'; wellFormed: boolean }
  /** Hidden routes (dashboard, /docs, /openapi.json): outside the document, never a 5xx. */
  | { kind: 'outside-document' }
  /** Bytes the HTTP layer may refuse before any route: if it does, with a problem. */
  | { kind: 'malformed' };

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

// README: "the caller's own value is kept when it is 1-128 characters of A-Z a-z 0-9 . _ : -".
const KEPT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const header = (response: ObservedResponse, name: string): string | undefined => {
  const value = response.headers[name];
  return value === undefined ? undefined : [value].flat().join(', ');
};

function problemViolations(response: ObservedResponse, head: boolean): Violation[] {
  const status = response.statusCode;
  const violations: Violation[] = [];
  const mediaType = mediaTypeOf(header(response, 'content-type'));
  if (mediaType !== PROBLEM_MEDIA_TYPE) {
    violations.push({ rule: `an error is ${mediaType ?? 'untyped'}, not ${PROBLEM_MEDIA_TYPE}` });
  }
  // A HEAD answer has the headers of the GET's, and no body to look into.
  if (head) return violations;
  let problem: Record<string, unknown>;
  try {
    problem = JSON.parse(response.body) as Record<string, unknown>;
    if (typeof problem !== 'object' || problem === null) throw new Error('not an object');
  } catch {
    return [...violations, { rule: 'an error body is not a JSON object' }];
  }
  for (const field of ['type', 'title', 'code', 'message', 'requestId']) {
    if (typeof problem[field] !== 'string' || problem[field] === '') {
      violations.push({ rule: `an error's problem has no ${field}` });
    }
  }
  if (problem.status !== status) {
    violations.push({
      rule: "an error's problem status is not the HTTP status",
      detail: JSON.stringify(problem.status),
    });
  }
  const requestId = header(response, 'x-request-id');
  if (typeof problem.requestId === 'string' && problem.requestId !== requestId) {
    violations.push({
      rule: "an error's requestId differs from its x-request-id header",
      detail: `${String(problem.requestId)} vs ${String(requestId)}`,
    });
  }
  return violations;
}

/** The Allow a 405 must carry: the document's methods for the path, HEAD wherever GET is. */
export function expectedAllow(document: OpenApiDocument, concretePath: string): string[] {
  const methods = methodsOfConcretePath(document, concretePath);
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
  return methods.sort();
}

function methodNotAllowedViolations(
  validator: ContractValidator,
  path: string,
  response: ObservedResponse,
  body: unknown,
  head: boolean,
): Violation[] {
  if (response.statusCode !== 405) {
    return [
      { rule: `a method the document does not list answered ${response.statusCode}, not 405` },
    ];
  }
  const violations: Violation[] = [];
  const allow = header(response, 'allow');
  const expected = expectedAllow(validator.document, path);
  const sent = (allow ?? '')
    .split(',')
    .map((method) => method.trim().toUpperCase())
    .filter(Boolean)
    .sort();
  if (allow === undefined) violations.push({ rule: 'a 405 has no Allow header' });
  else if (sent.join() !== expected.join()) {
    violations.push({
      rule: "a 405's Allow is not the document's methods for the path",
      detail: `Allow: ${allow}; the document: ${expected.join(', ')}`,
    });
  }
  if (!head && (body as { code?: unknown } | undefined)?.code !== 'METHOD_NOT_ALLOWED') {
    violations.push({ rule: 'a 405 problem is not METHOD_NOT_ALLOWED' });
  }
  return violations;
}

/** Every way one exchange breaks the contract; empty when it keeps it. */
export function violationsOf(
  validator: ContractValidator,
  target: Target,
  request: Pick<FuzzRequest, 'method' | 'headers'>,
  response: ObservedResponse,
): Violation[] {
  const head = request.method === 'HEAD';
  const status = response.statusCode;
  if (status >= 500) {
    return [{ rule: `answered ${status}`, detail: response.body.slice(0, 300) }];
  }
  if (target.kind === 'outside-document') return [];

  const violations: Violation[] = [];
  const requestId = header(response, 'x-request-id');
  if (requestId === undefined) violations.push({ rule: 'no x-request-id header' });
  const sentId = request.headers['x-request-id'];
  if (sentId !== undefined && KEPT_REQUEST_ID.test(sentId) && requestId !== sentId) {
    violations.push({ rule: 'a valid x-request-id sent was not kept', detail: sentId });
  }
  if (status >= 400) violations.push(...problemViolations(response, head));
  if (status === 401 && header(response, 'www-authenticate') === undefined) {
    violations.push({ rule: 'a 401 has no WWW-Authenticate' });
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  const problemBody = (): Violation[] => (head ? [] : validator.validateComponent('Problem', body));
  switch (target.kind) {
    case 'operation':
      violations.push(...validator.validate(target.method, target.path, response));
      break;
    case 'method-not-allowed':
      violations.push(...methodNotAllowedViolations(validator, target.path, response, body, head));
      violations.push(...problemBody());
      break;
    case 'unknown-path':
      if (status < 400) violations.push({ rule: `an unknown path answered ${status}` });
      else if (target.wellFormed && status !== 404) {
        violations.push({ rule: `an unknown path answered ${status}, not 404` });
      }
      violations.push(...problemBody());
      break;
    case 'malformed':
      if (status >= 400) violations.push(...problemBody());
      break;
  }
  return violations;
}
