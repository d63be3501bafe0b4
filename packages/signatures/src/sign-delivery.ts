import { Webhook } from 'standardwebhooks';

/**
 * The Standard Webhooks headers of one delivery: its message id (the same on every retry,
 * so a receiver can drop a duplicate), when it was signed, and one `v1,` signature per
 * secret, space-separated, so that during a rotation's overlap a receiver holding either
 * secret verifies it. Signed by the standardwebhooks package's own `Webhook.sign`.
 */
export function signDelivery(
  message: { id: string; body: string },
  secrets: readonly string[],
  at: Date = new Date(),
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  if (secrets.length === 0) throw new Error('a delivery needs at least one secret');
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets
      .map((secret) => new Webhook(secret).sign(message.id, at, message.body))
      .join(' '),
  };
}
