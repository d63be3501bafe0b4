import { AppError } from '@ingest/contracts';
import type { Queryable } from './queryable.js';

export interface IdempotencyClaim {
  /** The `Idempotency-Key` header, already checked well formed. */
  key: string;
  /** SHA-256 of the request body in canonical form. */
  requestHash: Uint8Array;
  /** A key older than this is free again. */
  ttlHours: number;
}

/**
 * The two-integer advisory lock of an Idempotency-Key, for `pg_advisory_xact_lock` and its
 * try form, over a row source with `account_id` and `key`. Every claim of a key holds it
 * first (record-calls.ts), so a transaction holding a key's lock knows no uncommitted
 * transaction claims that key. Two integers keep these locks apart from the lines'
 * one-bigint locks (`insertAccepted`); keys whose hashes collide only share a lock, which
 * makes one wait or go alone, never answer wrongly.
 */
export const keyLockArguments = (rows: string) => `${KEY_LOCK_SPACE}, ${keyLockHash(rows)}`;

const KEY_LOCK_SPACE = 1769105;
const keyLockHash = (rows: string) => `hashtext(${rows}.account_id::text || '/' || ${rows}.key)`;

/**
 * A statement that waits for the locks of many keys (`$1` account ids, `$2` keys), taken
 * in one order, the hashes', so that two transactions waiting on overlapping keys never
 * deadlock. Every transaction takes its keys' locks before its lines' (`insertAccepted`).
 */
export const LOCK_KEYS_IN_ORDER = `
  SELECT count(pg_advisory_xact_lock(${KEY_LOCK_SPACE}, held.hash)::text) AS locked
  FROM (SELECT DISTINCT ${keyLockHash('asked')} AS hash
        FROM unnest($1::uuid[], $2::text[]) AS asked(account_id, key)
        ORDER BY hash) AS held`;

export const mismatchError = () =>
  new AppError(
    'IDEMPOTENCY_KEY_MISMATCH',
    'This Idempotency-Key was already used with a different request; use a new key for a new request',
  );

const EXPIRY_BATCH = 5_000;

/**
 * Deletes up to EXPIRY_BATCH Idempotency-Keys older than `ttlHours`. The API already treats
 * an expired key as free; this only keeps the table small. Safe in many workers at once.
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
