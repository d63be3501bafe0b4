// Requests aimed at one operation of the document: its path parameters, its query, the
// credentials its `security` names, the headers this API reads, and its body.
import fc from 'fast-check';
import { hostileValue } from '../../properties/support/hostile-values.js';
import {
  acceptHeader,
  idempotencyKey,
  pathSegment,
  queryString,
  requestIdHeader,
  schemaValue,
} from './arbitraries.js';
import { authHeaders } from './auth-headers.js';
import { bodyFor, strayBody, type RawBody } from './bodies.js';
import type { Target } from './checks.js';
import type { Credentials } from './credentials.js';
import type { Operation } from './document.js';
import { FuzzRequest } from './requests.js';

/** What a test file knows about an operation beyond its schemas. */
export interface OperationProfile {
  /** Real values of path parameters (ids that exist, of the caller's and of others). */
  pathValues?: Record<string, fc.Arbitrary<string>>;
  /** Real values of query parameters (cursors, handles, categories), tried beside the schema's. */
  queryValues?: Record<string, fc.Arbitrary<string>>;
  /** Bodies valid or near valid, for an operation that takes one. */
  body?: fc.Arbitrary<unknown>;
  /** Headers this operation reads besides credentials (Prefer, Idempotency-Key). */
  headers?: fc.Arbitrary<Record<string, string | undefined>>;
  /** Changes a request before it is sent, where fuzzing must stay within bounds. */
  adjust?: (request: FuzzRequest) => FuzzRequest;
}

export interface Case {
  request: FuzzRequest;
  target: Target;
}

const sometimes = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number) =>
  fc.oneof({ weight: 1, arbitrary }, { weight: oneIn - 1, arbitrary: fc.constant(undefined) });

function pathOf(operation: Operation, profile: OperationProfile): fc.Arbitrary<string> {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  const segments = names.map((name) => {
    const schema = operation.parameters.find((p) => p.in === 'path' && p.name === name)?.schema;
    const valid = profile.pathValues?.[name] ?? schemaValue(schema ?? {});
    return pathSegment(valid);
  });
  return fc
    .tuple(...segments)
    .map((values) =>
      values.reduce<string>(
        (path, value, i) => path.replace(`{${names[i]}}`, value),
        operation.path,
      ),
    );
}

/** Every kind of request the operation may meet; the answer is held to the operation. */
export function operationRequests(
  operation: Operation,
  credentials: Credentials,
  profile: OperationProfile = {},
): fc.Arbitrary<Case> {
  const hasQuery = operation.parameters.some((p) => p.in === 'query');
  const query = hasQuery
    ? queryString(operation.parameters, profile.queryValues)
    : fc.oneof(
        { weight: 6, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: queryString([]) },
      );
  const method =
    operation.method === 'GET'
      ? fc.oneof(
          { weight: 9, arbitrary: fc.constant('GET') },
          { weight: 1, arbitrary: fc.constant('HEAD') },
        )
      : fc.constant(operation.method);
  const body: fc.Arbitrary<RawBody> =
    operation.object.requestBody === undefined ? strayBody : bodyFor(profile.body ?? hostileValue);
  const common = fc.record({
    'x-request-id': sometimes(requestIdHeader, 4),
    accept: sometimes(acceptHeader, 10),
    'idempotency-key':
      operation.method === 'POST' ? sometimes(idempotencyKey, 8) : fc.constant(undefined),
  });
  return fc
    .record({
      method,
      path: pathOf(operation, profile),
      query,
      auth: authHeaders(credentials, operation.object.security),
      common,
      own: profile.headers ?? fc.constant({}),
      body,
    })
    .map(({ method: verb, path, query: search, auth, common: shared, own, body: raw }) => {
      const headers: Record<string, string> = { ...auth };
      for (const [name, value] of Object.entries({ ...shared, ...own })) {
        if (value !== undefined) headers[name] = value;
      }
      if (raw.contentType !== undefined) headers['content-type'] = raw.contentType;
      const request = new FuzzRequest(verb, path, search, headers, raw.body);
      return {
        request: profile.adjust?.(request) ?? request,
        target: { kind: 'operation' as const, method: verb, path: operation.path },
      };
    });
}
