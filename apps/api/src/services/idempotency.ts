import { createHash } from 'node:crypto';
import { AppError, type FieldProblem } from '@ingest/contracts';
import { postgresCodeOf } from '@ingest/db';
import type { ApiDeps } from '../deps.js';
import type { Tx } from './event-record.js';

type Deps = Pick<ApiDeps, 'db' | 'config'>;

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;
/** How long a request waits for a concurrent one with the same key before giving up (409). */
const LOCK_TIMEOUT_MS = 5_000;
const LOCK_NOT_AVAILABLE = '55P03';

/** The header's key, undefined when absent; a field problem when it is malformed. */
export function idempotencyKeyFrom(
  header: string | string[] | undefined,
): { key: string | undefined } | { problem: FieldProblem } {
  if (header === undefined) return { key: undefined };
  if (typeof header === 'string' && PRINTABLE_ASCII.test(header)) return { key: header };
  return {
    problem: {
      path: `headers.${IDEMPOTENCY_KEY_HEADER}`,
      message: 'must be sent once, as 1-255 printable ASCII characters',
    },
  };
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

export type Claim = { claimed: true } | { claimed: false; eventId: string };

/**
 * Claims `key` for the event about to be recorded, inside the transaction that records
 * it. The primary key (account, key) decides between concurrent requests: the second
 * waits for the first to commit, then finds the key taken and answers with the first's
 * event (same body) or 422 (another body). A key older than the TTL is claimed afresh.
 */
export async function claimIdempotencyKey(
  deps: Deps,
  tx: Tx,
  claim: { accountId: string; key: string; requestHash: Uint8Array<ArrayBuffer>; eventId: string },
): Promise<Claim> {
  await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`);
  const ttlHours = deps.config.idempotency.ttlHours;
  try {
    const inserted = await tx.$queryRaw<Array<{ event_id: string }>>`
      INSERT INTO idempotency_keys (account_id, key, request_hash, event_id)
      VALUES (${claim.accountId}::uuid, ${claim.key}, ${claim.requestHash}, ${claim.eventId}::uuid)
      ON CONFLICT (account_id, key) DO UPDATE
        SET request_hash = EXCLUDED.request_hash, event_id = EXCLUDED.event_id, created_at = now()
        WHERE idempotency_keys.created_at < now() - make_interval(hours => ${ttlHours})
      RETURNING event_id`;
    if (inserted.length === 1) return { claimed: true };
  } catch (error) {
    if (postgresCodeOf(error) === LOCK_NOT_AVAILABLE) {
      throw new AppError(
        'IDEMPOTENCY_KEY_IN_USE',
        'A request with this Idempotency-Key is still being recorded; retry shortly',
        {
          headers: { 'retry-after': '1' },
        },
      );
    }
    throw error;
  }
  const [existing] = await tx.$queryRaw<Array<{ request_hash: Uint8Array; event_id: string }>>`
    SELECT request_hash, event_id FROM idempotency_keys
    WHERE account_id = ${claim.accountId}::uuid AND key = ${claim.key}`;
  if (existing === undefined) throw new Error('idempotency key vanished after a conflict');
  if (!Buffer.from(existing.request_hash).equals(Buffer.from(claim.requestHash))) {
    throw new AppError(
      'IDEMPOTENCY_KEY_MISMATCH',
      'This Idempotency-Key was already used with a different request; use a new key for a new request',
    );
  }
  return { claimed: false, eventId: existing.event_id };
}
