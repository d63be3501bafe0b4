import { AppError } from '@ingest/contracts';
import type pg from 'pg';
import { insertAccepted, type QueuedEvent } from './accepted.js';
import {
  keyLockArguments,
  LOCK_KEYS_IN_ORDER,
  mismatchError,
  type IdempotencyClaim,
} from './idempotency-keys.js';
import { inTransaction, type Queryable } from './queryable.js';
import { insertRejected, type RejectedEvent } from './rejected.js';

/** An accepted event, with the Idempotency-Key it was sent under if any. */
export interface AcceptedEntry {
  queued: QueuedEvent;
  claim?: IdempotencyClaim;
}

/** One publisher call: its accepted events in the call's order (their lines' order), and its refused ones. */
export interface CallRecord {
  accepted: AcceptedEntry[];
  rejected: RejectedEvent[];
}

/**
 * What recording did for one accepted event: recorded it, found the earlier event its key
 * names (not recorded), or refused it because its key was used with another body.
 */
export type Recorded = { receivedAt: Date } | { replayOf: string } | { refused: AppError };

/**
 * A call's outcome: each accepted event's, in order; or `alone`: another transaction was
 * claiming a key of the call, so nothing was recorded (record it again with `waitForKeys`).
 */
export type CallOutcome = { recorded: Recorded[] } | { alone: true };

/** How long a call waits for a concurrent one with the same key before giving up (409). */
const LOCK_TIMEOUT_MS = 5_000;
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Records publisher calls: the one way the event log records accepted and refused events.
 * The accepted events of all the calls are recorded together, in the order given (one
 * statement when none has a key; otherwise one transaction that claims the keys too), and
 * the refused ones beside them in one statement; it resolves once both are committed.
 *
 * By default no key's lock is waited for: a call whose key another transaction is claiming
 * (a concurrent copy of it) is left `alone`, so that one call never stalls the others. With
 * `waitForKeys` the calls (in practice one) wait for their keys (lockKeys), and so find a
 * concurrent copy's key taken: its event replayed (same body) or refused (another).
 */
export async function recordCalls(
  pool: pg.Pool,
  calls: CallRecord[],
  { waitForKeys = false } = {},
): Promise<CallOutcome[]> {
  const [outcomes] = await Promise.all([
    recordAccepted(pool, calls, waitForKeys),
    insertRejected(
      pool,
      calls.flatMap((call) => call.rejected),
    ),
  ]);
  return outcomes;
}

async function recordAccepted(
  pool: pg.Pool,
  calls: CallRecord[],
  waitForKeys: boolean,
): Promise<CallOutcome[]> {
  const entries = calls.flatMap((call) => call.accepted);
  if (entries.every((entry) => entry.claim === undefined)) {
    const at = entries.length === 0 ? undefined : await insertAccepted(pool, entries.map(queued));
    return calls.map((call) => ({ recorded: call.accepted.map(() => ({ receivedAt: at! })) }));
  }
  return inTransaction(pool, async (client) => {
    if (waitForKeys) await lockKeys(client, entries.filter(hasKey));
    const settled = await claimKeys(client, calls);
    const toRecord = calls.flatMap((call, index) => {
      const outcomes = settled[index];
      return outcomes === 'alone'
        ? []
        : call.accepted.filter((_, at) => outcomes?.[at] === undefined);
    });
    const receivedAt =
      toRecord.length === 0 ? undefined : await insertAccepted(client, toRecord.map(queued));
    return settled.map((outcomes): CallOutcome => {
      if (outcomes === 'alone') return { alone: true };
      return { recorded: outcomes.map((outcome) => outcome ?? { receivedAt: receivedAt! }) };
    });
  });
}

const queued = (entry: AcceptedEntry) => entry.queued;
type Keyed = AcceptedEntry & { claim: IdempotencyClaim };
const hasKey = (entry: AcceptedEntry): entry is Keyed => entry.claim !== undefined;

/** Waits for the keys' locks, in one order (see LOCK_KEYS_IN_ORDER); 409 after LOCK_TIMEOUT_MS. */
async function lockKeys(client: Queryable, keyed: Keyed[]): Promise<void> {
  await client.query(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`);
  try {
    await client.query({
      name: 'lock-idempotency-keys-in-order',
      text: LOCK_KEYS_IN_ORDER,
      values: [keyed.map((entry) => entry.queued.accountId), keyed.map((entry) => entry.claim.key)],
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw error;
    throw new AppError(
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still being recorded; retry shortly',
      { headers: { 'retry-after': '1' } },
    );
  }
}

/**
 * Claims the keys of the calls whose every key's lock this transaction holds or gets now
 * (tried, never waited for), in one statement; says of each key whether its call got every
 * lock and whether it was claimed. A key whose lock this transaction has is claimed by no
 * uncommitted transaction, so the INSERT waits for none.
 */
const CLAIM_KEYS = `
  WITH asked AS (
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::bytea[], $4::uuid[], $5::int[])
      AS a(account_id, key, request_hash, event_id, call)
  ),
  tried AS MATERIALIZED (
    SELECT *, pg_try_advisory_xact_lock(${keyLockArguments('asked')}) AS locked FROM asked
  ),
  whole AS (
    SELECT call FROM tried GROUP BY call HAVING bool_and(locked)
  ),
  claimed AS (
    INSERT INTO idempotency_keys (account_id, key, request_hash, event_id)
    SELECT account_id, key, request_hash, event_id FROM tried WHERE call IN (SELECT call FROM whole)
    ON CONFLICT (account_id, key) DO UPDATE
      SET request_hash = EXCLUDED.request_hash, event_id = EXCLUDED.event_id, created_at = now()
      WHERE idempotency_keys.created_at < now() - make_interval(hours => $6)
    RETURNING event_id
  )
  SELECT t.event_id, t.call IN (SELECT call FROM whole) AS locked,
         c.event_id IS NOT NULL AS claimed
  FROM tried t LEFT JOIN claimed c USING (event_id)`;

/** The events already holding these keys, by account and key. */
const EARLIER_CLAIMS = `
  SELECT k.account_id || '/' || k.key AS owner, k.event_id, k.request_hash
  FROM idempotency_keys k
  JOIN unnest($1::uuid[], $2::text[]) AS a(account_id, key) USING (account_id, key)`;

/**
 * Each call `alone` (some key held elsewhere), or each accepted event's outcome where its
 * key settled it: undefined for the events to record.
 */
type Settled = Array<Recorded | undefined> | 'alone';

async function claimKeys(client: Queryable, calls: CallRecord[]): Promise<Settled[]> {
  const keyed = calls.flatMap((call, index) =>
    call.accepted.filter(hasKey).map((entry) => ({ entry, call: index })),
  );
  const { rows } = await client.query<{ event_id: string; locked: boolean; claimed: boolean }>({
    name: 'claim-idempotency-keys',
    text: CLAIM_KEYS,
    values: [
      keyed.map(({ entry }) => entry.queued.accountId),
      keyed.map(({ entry }) => entry.claim.key),
      keyed.map(({ entry }) => entry.claim.requestHash),
      keyed.map(({ entry }) => entry.queued.id),
      keyed.map(({ call }) => call),
      keyed[0]?.entry.claim.ttlHours ?? 0, // the service's one TTL, on every claim
    ],
  });
  const claims = new Map(rows.map((row) => [row.event_id, row]));
  // Read apart, and only for keys another event holds: a statement of its own sees the
  // claims committed while the first ran.
  const taken = keyed.filter(({ entry }) => {
    const claim = claims.get(entry.queued.id);
    return claim?.locked === true && !claim.claimed;
  });
  const earlier =
    taken.length === 0
      ? new Map<string, { event_id: string; request_hash: Uint8Array }>()
      : await earlierClaims(
          client,
          taken.map(({ entry }) => entry),
        );
  return calls.map((call): Settled => {
    const outcomes: Array<Recorded | undefined> = [];
    for (const entry of call.accepted) {
      const claim = hasKey(entry) ? claims.get(entry.queued.id) : undefined;
      const holder = hasKey(entry) ? earlier.get(ownerOf(entry)) : undefined;
      if (!hasKey(entry) || claim?.claimed === true) outcomes.push(undefined);
      // Held elsewhere, or freed (expired) since: recorded alone, which waits.
      else if (!claim?.locked || holder === undefined) return 'alone';
      else {
        const same = Buffer.from(holder.request_hash).equals(Buffer.from(entry.claim.requestHash));
        outcomes.push(same ? { replayOf: holder.event_id } : { refused: mismatchError() });
      }
    }
    return outcomes;
  });
}

const ownerOf = (entry: Keyed) => `${entry.queued.accountId}/${entry.claim.key}`;

async function earlierClaims(client: Queryable, entries: Keyed[]) {
  const { rows } = await client.query<{
    owner: string;
    event_id: string;
    request_hash: Uint8Array;
  }>({
    name: 'earlier-idempotency-claims',
    text: EARLIER_CLAIMS,
    values: [
      entries.map((entry) => entry.queued.accountId),
      entries.map((entry) => entry.claim.key),
    ],
  });
  return new Map(rows.map((row) => [row.owner, row]));
}
