import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { principalOf } from '../../plugins/authentication.js';
import { IDEMPOTENCY_KEY_HEADER } from '../../publish/idempotency.js';
import type { Call } from '../../publish/publish-call.js';

/** The Standard Webhooks headers that sign a publishing call, as both routes document them. */
export const SIGNATURE_HEADERS = {
  'webhook-id': z.string().optional().meta({
    description:
      "Standard Webhooks request signature, with webhook-timestamp and webhook-signature: a unique id of the call (1-255 printable ASCII). Checked whenever sent; required when the key has requireSignature. It keys a signed call: a single publish's Idempotency-Key is its webhook-id, a batch's event without an idempotencyKey is keyed `<webhook-id>:<place>`",
  }),
  'webhook-timestamp': z.string().optional().meta({
    description:
      'Seconds since the epoch when the call was signed; within 5 minutes of the server time',
  }),
  'webhook-signature': z.string().optional().meta({
    description:
      '`v1,<base64 HMAC-SHA256 of "id.timestamp.body" with the key\'s signing secret>`; several, space-separated, while a sender rotates',
  }),
};

/** The publish path's call, from a request its API key authenticated. */
export function callOf(
  request: FastifyRequest,
  call: Pick<Call, 'batch' | 'notifyOnFinish' | 'granted' | 'retryAfterSeconds'>,
): Call {
  const principal = principalOf(request);
  if (principal.via !== 'apiKey' || request.keySigning === null) {
    throw new Error('route is missing requireApiKey');
  }
  return {
    principal,
    requestId: request.id,
    signature: { headers: request.headers, rawBody: request.rawBody, signing: request.keySigning },
    body: request.body,
    idempotencyKeyHeader: request.headers[IDEMPOTENCY_KEY_HEADER],
    ...call,
  };
}
