import { AppError } from '@ingest/contracts';
import { checkRequestSignature, type SignatureRefusal } from '@ingest/signatures';
import type { KeySigning } from '../services/api-key-auth.js';
import {
  IDEMPOTENCY_KEY_FORMAT,
  IDEMPOTENCY_KEY_HEADER,
  idempotencyKeyFrom,
  isIdempotencyKey,
} from './idempotency.js';

const REFUSAL_CODES = {
  required: 'SIGNATURE_REQUIRED',
  invalid: 'SIGNATURE_INVALID',
  expired: 'SIGNATURE_EXPIRED',
} as const satisfies Record<SignatureRefusal, string>;

export interface SignedCall {
  headers: Record<string, string | string[] | undefined>;
  /** The body's bytes as sent: what the signature is over. */
  rawBody: Buffer | null;
  signing: KeySigning;
}

/**
 * The request's signature, checked as part of key validation: absent (and allowed), or
 * valid, giving its `webhook-id`. A refusal is thrown as a 401 problem.
 */
export function verifyCallSignature(call: SignedCall): { webhookId: string } | undefined {
  const check = checkRequestSignature(
    { headers: call.headers, body: call.rawBody ?? Buffer.alloc(0) },
    call.signing.secrets,
    { required: call.signing.required },
  );
  if ('refused' in check) throw new AppError(REFUSAL_CODES[check.refused], check.reason);
  return check.signed ? { webhookId: check.webhookId } : undefined;
}

/**
 * The Idempotency-Key of a call. A signed call's `webhook-id` is one: a captured signed
 * request sent again within the signature's five minutes is the same event again, not
 * a second one. An Idempotency-Key header beside it must then say the same, since it is
 * not covered by the signature and could otherwise be changed to make a replay new.
 */
export function idempotencyKeyOf(
  header: string | string[] | undefined,
  signed: { webhookId: string } | undefined,
): string | undefined {
  if (signed === undefined) return idempotencyKeyFrom(header);
  const key = signed.webhookId;
  if (!isIdempotencyKey(key)) {
    throw new AppError('VALIDATION_FAILED', 'The webhook-id header is malformed', {
      errors: [{ path: 'headers.webhook-id', message: `must be ${IDEMPOTENCY_KEY_FORMAT}` }],
    });
  }
  if (header !== undefined && header !== key) {
    throw new AppError(
      'VALIDATION_FAILED',
      'A signed call is idempotent by its webhook-id; an Idempotency-Key beside it must be the same',
      {
        errors: [
          {
            path: `headers.${IDEMPOTENCY_KEY_HEADER}`,
            message: 'must equal webhook-id, or be left out',
          },
        ],
      },
    );
  }
  return key;
}
