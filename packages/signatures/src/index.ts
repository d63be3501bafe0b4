// Standard Webhooks (https://www.standardwebhooks.com) on both sides: publishers sign
// their calls with their key's secret, and the service signs what it delivers.
export {
  generateSigningSecret,
  rotateSecret,
  SECRET_PREFIX,
  type RotatedSecret,
} from './secrets.js';
export {
  checkRequestSignature,
  SIGNATURE_HEADERS,
  TIMESTAMP_TOLERANCE_SECONDS,
  type SignatureCheck,
  type SignatureRefusal,
} from './verify-request.js';
export { signDelivery } from './sign-delivery.js';
