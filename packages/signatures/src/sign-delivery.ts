import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * One `v1,` signature of the scheme: base64 of HMAC-SHA256, keyed by the secret's bytes
 * (the base64 after `whsec_`), of `id.timestamp.body`. Computed with node:crypto rather
 * than the standardwebhooks package's `Webhook.sign`, which hashes in JavaScript and costs
 * far more a signature. The tests hold it to that package's verifier and to the scheme's
 * published vector.
 */
function signatureOf(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The Standard Webhooks headers of one delivery: its message id (the same on every retry,
 * so a receiver can drop a duplicate), when it was signed, and one `v1,` signature per
 * secret, space-separated, so that during a rotation's overlap a receiver holding either
 * secret verifies it.
 */
export function signDelivery(
  message: { id: string; body: string },
  secrets: readonly string[],
  at: Date = new Date(),
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  if (secrets.length === 0) throw new Error('a delivery needs at least one secret');
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return {
    'webhook-id': message.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets
      .map((secret) => signatureOf(secret, message.id, timestamp, message.body))
      .join(' '),
  };
}
