import { createHash } from 'node:crypto';
import { AppError } from '@ingest/contracts';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** What isIdempotencyKey accepts, as the refusals of a malformed key say it. */
export const IDEMPOTENCY_KEY_FORMAT = '1-255 printable ASCII characters';

/** Whether `value` can be an idempotency key (IDEMPOTENCY_KEY_FORMAT). */
export const isIdempotencyKey = (value: string): boolean => PRINTABLE_ASCII.test(value);

/** The header's key, undefined when absent; 400 VALIDATION_FAILED when it is malformed. */
export function idempotencyKeyFrom(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header === 'string' && PRINTABLE_ASCII.test(header)) return header;
  throw new AppError('VALIDATION_FAILED', 'The Idempotency-Key header is malformed', {
    errors: [
      {
        path: `headers.${IDEMPOTENCY_KEY_HEADER}`,
        message: `must be sent once, as ${IDEMPOTENCY_KEY_FORMAT}`,
      },
    ],
  });
}

/** JSON with object keys sorted, so that the same body hashes the same however it was written. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map(
        (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
      );
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

export const requestHashOf = (body: unknown): Uint8Array<ArrayBuffer> =>
  new Uint8Array(createHash('sha256').update(canonicalJson(body)).digest());
