import {
  createServer,
  type IncomingMessage,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import { PROBLEM_CONTENT_TYPE } from '@ingest/contracts';
import {
  DEFAULT_COST,
  PUBLISH_COST,
  refusalOf,
  tenantOfAccount,
  type FairAdmission,
  type RefusalReport,
} from '@ingest/fairness';
import type { FastifyServerFactory } from 'fastify';
import type { ApiKeyAuthenticator } from '../services/api-key-auth.js';
import { API_KEY_HEADER } from './authentication.js';
import { problemOf } from './problem.js';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id.js';

export interface EarlyRefusalDeps {
  admission: FairAdmission;
  apiKeys: ApiKeyAuthenticator;
  refusals: RefusalReport;
}

/** The one route whose requests hold PUBLISH_COST places (routes/content). */
const PUBLISH_PATH = '/api/webhooks/content';

/**
 * Fastify's server, with one step before Fastify: a request of an account whose own
 * queue stands (admission control would refuse it) is refused right there, with the
 * same answer, before a Fastify request is made, a hook run or its body read. Under
 * open-loop load past capacity most requests are such refusals: answered through
 * Fastify they cost about 100 µs each here (its request and reply, every hook, the
 * metrics timers, a child logger, and the garbage of them all), enough to starve the
 * requests it admitted. Only a key this instance has cached is recognised (a hash and a
 * map lookup); anything else goes the normal way, where admission control decides.
 */
export function earlyRefusalServer(deps: EarlyRefusalDeps): FastifyServerFactory {
  return (handler, opts) => {
    // Fastify calls a factory with its own options, defaults filled in.
    const options = opts as unknown as FactoryOptions;
    const server = createServer(options.http ?? {}, (request, response) => {
      if (!refusedEarly(deps, request, response)) handler(request, response);
    });
    // What Fastify sets on the server it makes itself, and not on one made for it.
    server.keepAliveTimeout = options.keepAliveTimeout;
    server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket > 0)
      server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}

/** The normalised Fastify options a server factory is called with (HTTP/1 only here). */
interface FactoryOptions {
  http?: ServerOptions;
  keepAliveTimeout: number;
  requestTimeout: number;
  connectionTimeout: number;
  maxRequestsPerSocket: number;
}

function refusedEarly(
  deps: EarlyRefusalDeps,
  request: IncomingMessage,
  response: ServerResponse,
): boolean {
  const key = request.headers[API_KEY_HEADER];
  const url = request.url ?? '';
  if (typeof key !== 'string' || !url.startsWith('/api/')) return false;
  const accountId = deps.apiKeys.cachedAccountOf(key);
  if (accountId === undefined) return false;
  const refused = deps.admission.standingRefusal(tenantOfAccount(accountId));
  if (refused === undefined) return false;
  const isPublish = request.method === 'POST' && url.split('?')[0] === PUBLISH_PATH;
  const refusal = refusalOf(refused, isPublish ? PUBLISH_COST : DEFAULT_COST);
  const requestId = requestIdFrom(request);
  const problem = problemOf(refusal, requestId);
  const body = JSON.stringify(problem);
  deps.refusals.refused(refusal.reason, accountId);
  // Node reads and drops a body the handler did not read, and keeps the connection.
  response.writeHead(problem.status, {
    ...refusal.headers,
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    [REQUEST_ID_HEADER]: requestId,
  });
  response.end(body);
  return true;
}
