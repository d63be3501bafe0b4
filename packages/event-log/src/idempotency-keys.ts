import { AppError } from '@ingest/contracts';
import type pg from 'pg';
import { insertAccepted, type QueuedEvent } from './accepted.js';
import { inTransaction, type Queryable } from './queryable.js';

export interface IdempotencyClaim {
  /** The `Idempotency-Key` header, already checked well formed. */
  key: string;
  /** SHA-256 of the request body in canonical form. */
  requestHash: Uint8Array;
  /** A key older than this is free again. */
  ttlHours: number;
}

/** What recording under an Idempotency-Key did: recorded the event, or found an earlier one. */
export type RecordedOnce = { receivedAt: Date } | { replayOf: string };

/** How long a request waits for a concurrent one with the same key before giving up (409). */
export const LOCK_TIMEOUT_MS = 5_000;
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * The two-integer advisory lock of an Idempotency-Key, for `pg_advisory_xact_lock` and
 * its try form, over a row source with `account_id` and `key`. Every claim of a key holds
 * it first, alone or batched (`recordAcceptedBatch`), so a batch that gets a key's lock
 * knows no uncommitted transaction claims that key. Two integers keep these locks apart
 * from the lines' one-bigint locks (`insertAccepted`); keys whose hashes collide only
 * share a lock, which makes one wait or go alone, never answer wrongly.
 */
export const keyLockArguments = (rows: string) =>
  `1769105, hashtext(${rows}.account_id::text || '/' || ${rows}.key)`;

export const mismatchError = () =>
  new AppError(
    'IDEMPOTENCY_KEY_MISMATCH',
    'This Idempotency-Key was already used with a different request; use a new key for a new request',
  );

/**
 * Records an accepted event unless its Idempotency-Key names one already, in one
 * transaction: the key is claimed and the event recorded together, so a key never points
 * at an event that was not recorded. The key's lock decides between concurrent requests:
 * the second waits for the first to commit, then finds the key taken and answers with
 * the first's event (same body) or 422 (another body). The way alone, for a request
 * whose key a batch could not take at once; most are recorded by `recordAcceptedBatch`.
 */
export async function recordAcceptedOnce(
  pool: pg.Pool,
  queued: QueuedEvent,
  claim: IdempotencyClaim,
): Promise<RecordedOnce> {
  return inTransaction(pool, async (client) => {
    const owner = await claimKey(client, queued, claim);
    if (owner !== queued.id) return { replayOf: owner };
    return { receivedAt: await insertAccepted(client, [queued]) };
  });
}

/** The event the key belongs to: `queued`'s own id when this request claimed it. */
async function claimKey(
  client: Queryable,
  queued: QueuedEvent,
  claim: IdempotencyClaim,
): Promise<string> {
  await client.query(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`);
  try {
    await client.query({
      name: 'lock-idempotency-key',
      text: `SELECT pg_advisory_xact_lock(${keyLockArguments('asked')})
             FROM (SELECT $1::uuid AS account_id, $2::text AS key) AS asked`,
      values: [queued.accountId, claim.key],
    });
    const inserted = await client.query<{ event_id: string }>({
      name: 'claim-idempotency-key',
      text: `
        INSERT INTO idempotency_keys (account_id, key, request_hash, event_id)
        VALUES ($1::uuid, $2, $3, $4::uuid)
        ON CONFLICT (account_id, key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, event_id = EXCLUDED.event_id, created_at = now()
          WHERE idempotency_keys.created_at < now() - make_interval(hours => $5)
        RETURNING event_id`,
      values: [queued.accountId, claim.key, claim.requestHash, queued.id, claim.ttlHours],
    });
    if (inserted.rows.length === 1) return queued.id;
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) {
      throw new AppError(
        'IDEMPOTENCY_KEY_IN_USE',
        'A request with this Idempotency-Key is still being recorded; retry shortly',
        { headers: { 'retry-after': '1' } },
      );
    }
    throw error;
  }
  const { rows } = await client.query<{ request_hash: Uint8Array; event_id: string }>(
    'SELECT request_hash, event_id FROM idempotency_keys WHERE account_id = $1::uuid AND key = $2',
    [queued.accountId, claim.key],
  );
  const [existing] = rows;
  if (existing === undefined) throw new Error('idempotency key vanished after a conflict');
  if (!Buffer.from(existing.request_hash).equals(Buffer.from(claim.requestHash))) {
    throw mismatchError();
  }
  return existing.event_id;
}

const EXPIRY_BATCH = 5_000;

/**
 * Deletes up to 5,000 Idempotency-Keys older than `ttlHours`. The API already treats an
 * expired key as free; this only keeps the table small. Safe in many workers at once.
 */
export async function expireIdempotencyKeys(on: Queryable, ttlHours: number): Promise<number> {
  const { rowCount } = await on.query(
    `DELETE FROM idempotency_keys
     WHERE ctid IN (
       SELECT ctid FROM idempotency_keys
       WHERE created_at < now() - make_interval(hours => $1)
       LIMIT ${EXPIRY_BATCH}
     )`,
    [ttlHours],
  );
  return rowCount ?? 0;
}
