import { IngestError } from './errors.js';
import { retryAfterMs, retryDelayMs, sleep, type RetryPolicy } from './retry.js';
import { signatureHeaders } from './signing.js';

/**
 * Which failures a call may be sent again after.
 * - `idempotent`: a GET, a publish with its Idempotency-Key, or a batch whose every event
 *   carries its idempotencyKey: also a network error, a lost answer or any 5xx. The call
 *   may or may not have been acted on (a proxy's 502 when the API died mid-call); sent
 *   again, it cannot make a second effect.
 * - `unprocessed`: any other call: only answers that say it was not processed (429, 503,
 *   409 IDEMPOTENCY_KEY_IN_USE). A lost answer to a register might have registered.
 */
export type Retryable = 'idempotent' | 'unprocessed';

export interface SendOptions {
  fetch: (request: Request) => Promise<Response>;
  retry: RetryPolicy;
  retryable: Retryable;
  /** Signs the body (Standard Webhooks) with webhook-id = the call's Idempotency-Key. */
  signingSecret?: string | undefined;
  signal?: AbortSignal | undefined;
  /** A send not answered (body included) within this long is a network error. */
  timeoutMs?: number | undefined;
  /** Called before each retry (for progress reporting and tests). */
  onRetry?: ((retry: { attempt: number; delayMs: number; reason: string }) => void) | undefined;
}

/** Answers that say the service did not process the call and asks for it again later. */
async function askedToRetry(response: Response, retryable: Retryable): Promise<boolean> {
  if (response.status === 429 || response.status === 503) return true;
  if (retryable === 'idempotent' && response.status >= 500) return true;
  if (response.status !== 409) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { code?: unknown }).code === 'IDEMPOTENCY_KEY_IN_USE'
  );
}

/**
 * Sends `request`, again after the failures `retryable` allows, up to `retry.attempts`
 * sends, waiting as Retry-After asks or by jittered back-off. Returns the last answer
 * (2xx or not: the caller reads it) and how many sends it took; throws an IngestError
 * with status 0 when no answer came.
 */
export async function send(
  request: Request,
  options: SendOptions,
): Promise<{ response: Response; attempts: number }> {
  const body = request.body === null ? undefined : await request.text();
  const { retry, signal } = options;
  // A publish is signed as its Idempotency-Key, so that the service takes the two for one.
  // A batch has no such header (its keys are its events'): its webhook-id is its own, the
  // same on each send of this body.
  const webhookId = request.headers.get('idempotency-key') ?? crypto.randomUUID();
  for (let attempt = 1; ; attempt += 1) {
    const headers = new Headers(request.headers);
    if (options.signingSecret !== undefined && body !== undefined) {
      const signature = signatureHeaders(options.signingSecret, webhookId, body);
      for (const [name, value] of Object.entries(signature)) headers.set(name, value);
    }
    const last = attempt >= retry.attempts;
    const deadline = sendSignal(signal, options.timeoutMs);
    let response: Response;
    try {
      response = await options.fetch(
        new Request(request.url, {
          method: request.method,
          headers,
          ...(body === undefined ? {} : { body }),
          ...(deadline.signal === undefined ? {} : { signal: deadline.signal }),
        }),
      );
      // Within the deadline too: an answer whose body never ends is no answer.
      if (options.timeoutMs !== undefined) response = await buffered(response);
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      const reason = error instanceof Error ? (error.cause ?? error) : error;
      const message = reason instanceof Error ? reason.message : String(reason);
      if (options.retryable === 'unprocessed' || last) {
        throw new IngestError(
          {
            status: 0,
            code: 'NETWORK_ERROR',
            message: `Could not reach the service at ${new URL(request.url).origin}: ${message}`,
            attempts: attempt,
          },
          { cause: error },
        );
      }
      const delayMs = retryDelayMs(retry, attempt, undefined);
      options.onRetry?.({ attempt, delayMs, reason: message });
      await sleep(delayMs, signal);
      continue;
    } finally {
      deadline.clear();
    }
    if (last || !(await askedToRetry(response, options.retryable)))
      return { response, attempts: attempt };
    const delayMs = retryDelayMs(retry, attempt, retryAfterMs(response.headers.get('retry-after')));
    options.onRetry?.({ attempt, delayMs, reason: `answered ${response.status}` });
    await response.body?.cancel();
    await sleep(delayMs, signal);
  }
}

/** The signal one send goes with: the caller's, and with a timeout, aborted after it. */
function sendSignal(
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): { signal: AbortSignal | undefined; clear: () => void } {
  if (timeoutMs === undefined) return { signal, clear: () => {} };
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted === true) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

const buffered = async (response: Response): Promise<Response> =>
  new Response(await response.arrayBuffer(), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
