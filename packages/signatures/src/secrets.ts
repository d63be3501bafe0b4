import { randomBytes } from 'node:crypto';

/** Standard Webhooks secrets are `whsec_` and the base64 of 24 to 64 random bytes. */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A new signing secret: 32 random bytes, as the scheme writes them. */
export const generateSigningSecret = (): string =>
  `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;

/** A secret replaced by a new one, and how long the one it replaces still counts. */
export interface RotatedSecret {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * A new secret for one whose holder rotates it: the current one keeps counting for
 * `overlapMs` (0: not at all), so the other side can switch without a refusal. A rotation
 * during an overlap ends the older one's at once: two secrets at most.
 */
export function rotateSecret(current: string, overlapMs: number, now = Date.now()): RotatedSecret {
  return {
    secret: generateSigningSecret(),
    previousSecret: overlapMs > 0 ? current : null,
    previousSecretExpiresAt: overlapMs > 0 ? new Date(now + overlapMs) : null,
  };
}
