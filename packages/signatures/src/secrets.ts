import { randomBytes } from 'node:crypto';

/** Standard Webhooks secrets are `whsec_` and the base64 of 24 to 64 random bytes. */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A new signing secret: 32 random bytes, as the scheme writes them. */
export const generateSigningSecret = (): string =>
  `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
