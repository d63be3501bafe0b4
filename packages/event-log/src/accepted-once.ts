import { AppError } from '@ingest/contracts';
import type pg from 'pg';
import { insertAccepted, type QueuedEvent } from './accepted.js';
import {
  keyLockArguments,
  LOCK_KEYS_IN_ORDER,
  mismatchError,
  type IdempotencyClaim,
  type RecordedOnce,
} from './idempotency-keys.js';
import { inTransaction, type Queryable } from './queryable.js';

/** An accepted event, with the Idempotency-Key it was sent under if any. */
export interface AcceptedEntry {
  queued: QueuedEvent;
  claim?: IdempotencyClaim;
}

/**
 * What recording a batch did for one entry: recorded it, found the event its key names,
 * refused it (another body under its key), or left it to be recorded alone because its
 * key is being claimed by another transaction at this moment.
 */
export type BatchOutcome = RecordedOnce | { refused: AppError } | { alone: true };

/** How long a request waits for a concurrent one with the same key before giving up (409). */
const LOCK_TIMEOUT_MS = 5_000;
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Claims the Idempotency-Keys of a batch without waiting for anyone: each key's advisory
 * lock is tried, and a key another transaction holds is left out (`locked` false) for its
 * request to be recorded alone, where waiting on it stalls no one else's request. A key
 * whose lock this transaction has is claimed by no uncommitted transaction, so the
 * INSERT does not wait on one.
 */
const CLAIM_KEYS = `
  WITH asked AS (
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::bytea[], $4::uuid[])
      AS a(account_id, key, request_hash, event_id)
  ),
  locked AS MATERIALIZED (
    SELECT * FROM asked WHERE pg_try_advisory_xact_lock(${keyLockArguments('asked')})
  ),
  claimed AS (
    INSERT INTO idempotency_keys (account_id, key, request_hash, event_id)
    SELECT account_id, key, request_hash, event_id FROM locked
    ON CONFLICT (account_id, key) DO UPDATE
      SET request_hash = EXCLUDED.request_hash, event_id = EXCLUDED.event_id, created_at = now()
      WHERE idempotency_keys.created_at < now() - make_interval(hours => $5)
    RETURNING event_id
  )
  SELECT asked.event_id,
         locked.event_id IS NOT NULL AS locked,
         claimed.event_id IS NOT NULL AS claimed
  FROM asked
  LEFT JOIN locked USING (event_id)
  LEFT JOIN claimed USING (event_id)`;

/**
 * Records a batch of accepted events in one transaction, claiming the Idempotency-Keys of
 * those sent with one: group commit for exactly-once publishing, where a key per request
 * used to mean a transaction per request. Keys must be distinct per account in a batch.
 * An event whose key was free is recorded with the rest; one whose key names an earlier
 * event is not recorded and gets that event (or a refusal, when its body differs).
 */
export async function recordAcceptedBatch(
  pool: pg.Pool,
  entries: AcceptedEntry[],
): Promise<BatchOutcome[]> {
  return inTransaction(pool, async (client) => {
    // No lock_timeout: the keys' locks are only tried, and the lines' locks are held for
    // as long as another batch's INSERT, as in a batch without keys.
    const settled = await settleByKeys(client, entries);
    const toRecord = entries.filter((_, i) => settled[i] === undefined);
    const recorded =
      toRecord.length === 0
        ? undefined
        : {
            receivedAt: await insertAccepted(
              client,
              toRecord.map((entry) => entry.queued),
            ),
          };
    // Every entry left unsettled was recorded; the last fallback only satisfies the types.
    return settled.map((outcome) => outcome ?? recorded ?? { alone: true });
  });
}

/**
 * Records one accepted event unless its Idempotency-Key names one already, in one
 * transaction: the key is claimed and the event recorded together, so a key never points
 * at an event that was not recorded. Unlike a batch it waits for the key's lock, so of
 * concurrent copies of a request the later ones find the key taken by the first and
 * answer with its event (same body) or 422 (another body), or 409 after 5 s of waiting.
 * The way for a request whose key a batch could not take at once.
 */
export async function recordAcceptedOnce(
  pool: pg.Pool,
  queued: QueuedEvent,
  claim: IdempotencyClaim,
): Promise<RecordedOnce> {
  // A call of one: the same wait for its key, claim and record.
  const [outcome] = await recordAcceptedCall(pool, [{ queued, claim }]);
  if (outcome === undefined) throw new Error(`no outcome for event ${queued.id}`);
  if ('refused' in outcome) throw outcome.refused;
  return outcome;
}

/** What recording one publisher's batch did for one of its events. */
export type CallOutcome = RecordedOnce | { refused: AppError };

/**
 * Records the accepted events of one publisher's batch call in one transaction, in the
 * order given, claiming the Idempotency-Keys of those sent with one (distinct per account
 * in a call). Unlike a group-commit batch, which is shared by other callers and so only
 * tries its keys' locks, this waits for them, in one order: an entry left to be recorded
 * alone would take its sequence after the entries behind it in the call, and the call's
 * order is its lines' order. A retry of the call still in flight elsewhere is waited for,
 * then finds its keys taken and gets their events (409 after 5 s of waiting).
 */
export async function recordAcceptedCall(
  pool: pg.Pool,
  entries: AcceptedEntry[],
): Promise<CallOutcome[]> {
  return inTransaction(pool, async (client) => {
    const keyed = entries.filter(hasKey);
    if (keyed.length > 0) {
      await client.query(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`);
      await inUseOnTimeout(() =>
        client.query({
          name: 'lock-idempotency-keys-in-order',
          text: LOCK_KEYS_IN_ORDER,
          values: [
            keyed.map((entry) => entry.queued.accountId),
            keyed.map((entry) => entry.claim.key),
          ],
        }),
      );
    }
    const settled = await settleByKeys(client, entries);
    const toRecord = entries.filter((_, i) => settled[i] === undefined);
    const receivedAt =
      toRecord.length === 0
        ? undefined
        : await insertAccepted(
            client,
            toRecord.map((entry) => entry.queued),
          );
    return settled.map((outcome) => {
      if (outcome === undefined && receivedAt !== undefined) return { receivedAt };
      if (outcome !== undefined && !('alone' in outcome)) return outcome;
      // Its lock held, a key can only have been freed (expired) since it was tried.
      throw new Error('idempotency key vanished while its lock was held');
    });
  });
}

/** Runs `claim`; a lock it waited for past lock_timeout is 409 IDEMPOTENCY_KEY_IN_USE. */
async function inUseOnTimeout<Result>(claim: () => Promise<Result>): Promise<Result> {
  try {
    return await claim();
  } catch (error) {
    if ((error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw error;
    throw new AppError(
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still being recorded; retry shortly',
      { headers: { 'retry-after': '1' } },
    );
  }
}

type Keyed = AcceptedEntry & { claim: IdempotencyClaim };
const hasKey = (entry: AcceptedEntry): entry is Keyed => entry.claim !== undefined;
const keyOf = (entry: Keyed) => `${entry.queued.accountId}/${entry.claim.key}`;

/** Each entry's outcome when its key settled it; undefined for the entries to record. */
async function settleByKeys(
  client: Queryable,
  entries: AcceptedEntry[],
): Promise<Array<BatchOutcome | undefined>> {
  const keyed = entries.filter(hasKey);
  const [first] = keyed;
  if (first === undefined) return entries.map(() => undefined);
  const { rows } = await client.query<{ event_id: string; locked: boolean; claimed: boolean }>({
    name: 'claim-idempotency-keys',
    text: CLAIM_KEYS,
    values: [
      keyed.map((entry) => entry.queued.accountId),
      keyed.map((entry) => entry.claim.key),
      keyed.map((entry) => entry.claim.requestHash),
      keyed.map((entry) => entry.queued.id),
      first.claim.ttlHours, // the service's one TTL, on every claim
    ],
  });
  const claims = new Map(rows.map((row) => [row.event_id, row]));
  const taken = await earlierClaims(
    client,
    keyed.filter((entry) => {
      const claim = claims.get(entry.queued.id);
      return claim?.locked === true && !claim.claimed;
    }),
  );
  return entries.map((entry) => {
    if (!hasKey(entry)) return undefined;
    const claim = claims.get(entry.queued.id);
    if (claim?.claimed === true) return undefined;
    const earlier = claim?.locked === true ? taken.get(keyOf(entry)) : undefined;
    // Held elsewhere, or freed since the claim was tried: recorded alone, which waits.
    if (earlier === undefined) return { alone: true };
    return Buffer.from(earlier.request_hash).equals(Buffer.from(entry.claim.requestHash))
      ? { replayOf: earlier.event_id }
      : { refused: mismatchError() };
  });
}

interface EarlierClaim {
  account_id: string;
  key: string;
  request_hash: Uint8Array;
  event_id: string;
}

/** The events already holding these entries' keys, by `keyOf`. */
async function earlierClaims(client: Queryable, entries: Keyed[]) {
  if (entries.length === 0) return new Map<string, EarlierClaim>();
  const { rows } = await client.query<EarlierClaim>(
    `SELECT k.account_id, k.key, k.request_hash, k.event_id
     FROM idempotency_keys k
     JOIN unnest($1::uuid[], $2::text[]) AS a(account_id, key) USING (account_id, key)`,
    [entries.map((entry) => entry.queued.accountId), entries.map((entry) => entry.claim.key)],
  );
  return new Map(rows.map((row) => [`${row.account_id}/${row.key}`, row]));
}
