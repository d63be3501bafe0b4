import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** The three headers of a Standard Webhooks signature, lower case as Node gives them. */
export const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** How far a signature's timestamp may be from now, either way: the scheme's 5 minutes. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export type SignatureRefusal = 'required' | 'invalid' | 'expired';

export type SignatureCheck =
  | { signed: false }
  | { signed: true; webhookId: string }
  | { refused: SignatureRefusal; reason: string };

type Headers = Record<string, string | string[] | undefined>;

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? undefined : value;

/**
 * Checks a request's Standard Webhooks signature against the key's secrets (the current
 * one, and during a rotation's overlap the previous one).
 *
 * Any signature header present means the caller signs, and then all three must be
 * valid: a half-signed request is refused, not taken as unsigned. With none, the request
 * passes as unsigned unless `required`. The timestamp is checked here, before the
 * HMAC, to tell an expired signature (a clock off, or a replay) from a wrong one; the
 * HMAC itself is the standardwebhooks package's (`Webhook.verify`, constant-time), which
 * also reads the space-separated list of signatures a sender may send during its own
 * rotation.
 */
export function checkRequestSignature(
  request: { headers: Headers; body: Buffer | string },
  secrets: readonly string[],
  options: { required: boolean; now?: Date },
): SignatureCheck {
  const [id, timestamp, signature] = SIGNATURE_HEADERS.map((name) => single(request.headers[name]));
  const present = SIGNATURE_HEADERS.some((name) => request.headers[name] !== undefined);
  if (!present) {
    return options.required
      ? {
          refused: 'required',
          reason:
            'This key requires signed requests: send webhook-id, webhook-timestamp and webhook-signature',
        }
      : { signed: false };
  }
  if (id === undefined || timestamp === undefined || signature === undefined || id === '') {
    return {
      refused: 'invalid',
      reason: 'Send each of webhook-id, webhook-timestamp and webhook-signature once',
    };
  }
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (Number.isNaN(seconds)) {
    return {
      refused: 'invalid',
      reason: 'webhook-timestamp must be whole seconds since the epoch',
    };
  }
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - seconds) > TIMESTAMP_TOLERANCE_SECONDS) {
    return {
      refused: 'expired',
      reason: `webhook-timestamp is more than ${TIMESTAMP_TOLERANCE_SECONDS / 60} minutes from the server's time; sign each request when you send it`,
    };
  }
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signature,
  };
  for (const secret of secrets) {
    if (verifies(secret, request.body, headers)) return { signed: true, webhookId: id };
  }
  return {
    refused: 'invalid',
    reason: "webhook-signature does not match the key's signing secret",
  };
}

function verifies(secret: string, body: Buffer | string, headers: Record<string, string>): boolean {
  try {
    // verify() also parses the body as JSON, which the API has already done: a body that
    // was not JSON never gets here.
    new Webhook(secret).verify(body, headers);
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError || error instanceof SyntaxError) return false;
    throw error;
  }
}
