import { IngestError } from './errors.js';
import { retryAfterMs, retryDelayMs, sleep, type RetryPolicy } from './retry.js';
import { signatureHeaders } from './signing.js';

/**
 * Which failures a call may be sent again after.
 * - `idempotent`: a GET, or a publish with its Idempotency-Key: also a network error or a
 *   lost answer, since sending it again cannot make a second effect.
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
  /** Called before each retry (for progress reporting and tests). */
  onRetry?: ((retry: { attempt: number; delayMs: number; reason: string }) => void) | undefined;
}

/** Answers that say the service did not process the call and asks for it again later. */
async function askedToRetry(response: Response): Promise<boolean> {
  if (response.status === 429 || response.status === 503) return true;
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
  for (let attempt = 1; ; attempt += 1) {
    const headers = new Headers(request.headers);
    if (options.signingSecret !== undefined && body !== undefined) {
      const id = headers.get('idempotency-key') ?? crypto.randomUUID();
      headers.set('idempotency-key', id);
      for (const [name, value] of Object.entries(signatureHeaders(options.signingSecret, id, body)))
        headers.set(name, value);
    }
    const last = attempt >= retry.attempts;
    let response: Response;
    try {
      response = await options.fetch(
        new Request(request.url, {
          method: request.method,
          headers,
          ...(body === undefined ? {} : { body }),
          ...(signal === undefined ? {} : { signal }),
        }),
      );
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      const reason = error instanceof Error ? (error.cause ?? error) : error;
      const message = reason instanceof Error ? reason.message : String(reason);
      if (options.retryable !== 'idempotent' || last) {
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
    }
    if (last || !(await askedToRetry(response))) return { response, attempts: attempt };
    const delayMs = retryDelayMs(retry, attempt, retryAfterMs(response.headers.get('retry-after')));
    options.onRetry?.({ attempt, delayMs, reason: `answered ${response.status}` });
    await response.body?.cancel();
    await sleep(delayMs, signal);
  }
}
