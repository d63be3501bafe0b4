import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './generated/openapi.js';

/**
 * The Standard Webhooks headers that sign `body` as call `id`, now: what the service
 * checks when a key signs (and requires when the key has requireSignature). The service
 * takes a signed call's webhook-id as its Idempotency-Key, so a retry is signed again
 * with the same id and a fresh timestamp.
 */
export function signatureHeaders(
  secret: string,
  id: string,
  body: string,
  now: Date = new Date(),
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, now, body),
  };
}

/**
 * A message the service sends to a subscribed endpoint (`type` tells which): the body of
 * one of the OpenAPI document's `webhooks`, one per message type.
 */
export type WebhookMessage = {
  [Type in keyof webhooks]: webhooks[Type]['post']['requestBody']['content']['application/json'];
}[keyof webhooks];

export class WebhookVerificationFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationFailed';
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

const headerRecord = (headers: HeaderBag): Record<string, string> => {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  return Object.fromEntries(
    entries.flatMap(([name, value]) =>
      typeof value === 'string' ? [[name.toLowerCase(), value]] : [],
    ),
  );
};

/**
 * Checks a webhook the service sent to your endpoint (Standard Webhooks: HMAC-SHA256 of
 * id, timestamp and the body exactly as received, within 5 minutes) and returns its
 * message. Pass the raw body, not a re-serialised object: one changed byte fails it.
 * Throws WebhookVerificationFailed when the signature, the timestamp or the headers are
 * wrong; answer such a request 400 and do not act on it.
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderBag,
  body: string | Uint8Array,
): WebhookMessage {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    return new Webhook(secret).verify(text, headerRecord(headers)) as WebhookMessage;
  } catch (error) {
    if (error instanceof WebhookVerificationError)
      throw new WebhookVerificationFailed(error.message);
    throw error;
  }
}
