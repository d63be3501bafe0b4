import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressRefusal, checkEndpointUrl, type TargetPolicy } from './target-policy.js';

export interface AttemptRequest {
  url: string;
  /** The JSON body, as signed. */
  body: string;
  headers: Record<string, string>;
}

export interface AttemptLimits {
  /** The whole exchange: resolving, connecting, sending and reading the answer. */
  timeoutMs: number;
  /** More of an answer's body than this is not read (nor kept). */
  maxResponseBytes: number;
}

export type AttemptOutcome =
  /**
   * The receiver answered; any status, redirects included (they are not followed). A 429
   * or 503 carries the wait its Retry-After asks for, when it gives a valid one.
   */
  | {
      kind: 'answered';
      status: number;
      body: string;
      truncated: boolean;
      latencyMs: number;
      retryAfterMs?: number;
    }
  /** The target policy refused the URL or every address its host resolved to: nothing was sent. */
  | { kind: 'refused'; reason: string; latencyMs: number }
  /** No answer: the name did not resolve, the connection failed, or time ran out. */
  | { kind: 'failed'; reason: string; latencyMs: number };

/** How names are resolved: the system's resolver, or a test's. */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, callback) =>
  dnsLookup(hostname, options, callback);

/** Thrown from the lookup, so that the request fails before it connects anywhere. */
class RefusedAddress extends Error {
  override name = 'RefusedAddress';
}

/**
 * A DNS lookup that answers only with the addresses the policy lets us reach. It runs
 * inside the connection (Node calls it, then connects to what it answered), so the
 * address checked is the address connected to: a name that resolves elsewhere the second
 * time (DNS rebinding) cannot slip between a check and the connection. A name that also
 * resolves to refused addresses is connected through its allowed ones only.
 */
function guardedLookup(policy: TargetPolicy, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error !== null) {
        callback(error, '', 0);
        return;
      }
      const allowed = addresses.filter(
        ({ address }) => addressRefusal(address, policy, hostname) === null,
      );
      const [first] = allowed;
      if (first === undefined) {
        const refusals = addresses.map(({ address }) => addressRefusal(address, policy, hostname));
        const reason = refusals.length === 0 ? 'no address' : refusals.join('; ');
        callback(
          new RefusedAddress(`${hostname} resolves only to refused addresses: ${reason}`),
          '',
          0,
        );
        return;
      }
      if (options.all === true) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * One delivery attempt: POSTs the body to the URL and reads the answer. The policy is
 * checked on the URL and, after resolution, on every address (guardedLookup); redirects
 * are answers, never followed (a 3xx to an internal address is how an SSRF hides); the
 * answer's body is read up to a cap; one timeout bounds the whole exchange. Never throws.
 *
 * Each attempt opens its own connection (no keep-alive agent), so each resolves the name
 * and checks the address again, at the cost of a TCP (and TLS) handshake an attempt.
 */
export function sendAttempt(
  request: AttemptRequest,
  policy: TargetPolicy,
  limits: AttemptLimits,
  resolve: Resolver = systemResolver,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  const check = checkEndpointUrl(request.url, policy);
  if (!check.ok)
    return Promise.resolve({ kind: 'refused', reason: `the url ${check.reason}`, latencyMs: 0 });
  const { url } = check;
  const body = Buffer.from(request.body);

  return new Promise((done) => {
    let settled = false;
    const settle = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      done(outcome);
    };
    const client = url.protocol === 'https:' ? https : http;
    const outgoing = client.request(url, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(body.length) },
      agent: false,
      lookup: guardedLookup(policy, resolve),
      signal: AbortSignal.timeout(limits.timeoutMs),
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const status = response.statusCode ?? 0;
      const retryAfterMs = ASKS_TO_WAIT.has(status)
        ? retryAfterOf(response.headers['retry-after'], Date.now())
        : undefined;
      const answered = () =>
        settle({
          kind: 'answered',
          status,
          body: Buffer.concat(chunks).toString('utf8'),
          truncated,
          latencyMs: elapsed(),
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        });
      response.on('data', (chunk: Buffer) => {
        const room = limits.maxResponseBytes - size;
        if (chunk.length >= room) {
          chunks.push(chunk.subarray(0, room));
          size += room;
          truncated = chunk.length > room || truncated;
          if (chunk.length > room) {
            // Enough read: the rest is not ours to wait for. The answer stands.
            answered();
            response.destroy();
          }
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      response.on('end', answered);
      response.on('error', (error) => settle(failure(error, limits, elapsed())));
    });
    outgoing.on('error', (error) => settle(failure(error, limits, elapsed())));
    outgoing.end(body);
  });
}

/** Statuses whose Retry-After asks the sender to wait: too many requests, unavailable. */
const ASKS_TO_WAIT = new Set([429, 503]);
/** A receiver may ask for a pause, not for a delivery to be shelved. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
const DELTA_SECONDS = /^\d+$/;
/** IMF-fixdate, RFC 850 and asctime dates all open with the day's name. */
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;

/** The wait a Retry-After value asks for (RFC 9110 10.2.3), capped; undefined when invalid or past. */
function retryAfterOf(value: string | undefined, now: number): number | undefined {
  const text = value?.trim() ?? '';
  let ms = Number.NaN;
  if (DELTA_SECONDS.test(text)) ms = Number(text) * 1000;
  // Every HTTP date is in GMT; asctime's does not say so, and Date.parse would read it as local.
  if (HTTP_DATE.test(text)) ms = Date.parse(text.endsWith('GMT') ? text : `${text} GMT`) - now;
  return ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

function failure(error: Error, limits: AttemptLimits, latencyMs: number): AttemptOutcome {
  if (error instanceof RefusedAddress) return { kind: 'refused', reason: error.message, latencyMs };
  if (error.name === 'AbortError' || error.name === 'TimeoutError') {
    return { kind: 'failed', reason: `no answer within ${limits.timeoutMs} ms`, latencyMs };
  }
  const code = (error as NodeJS.ErrnoException).code;
  return {
    kind: 'failed',
    reason: code === undefined ? error.message : `${code}: ${error.message}`,
    latencyMs,
  };
}
