import { createHash, randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { createCallRecorder } from '@ingest/api/call-recorder';
import { keyLockArguments, type QueuedEvent } from '@ingest/event-log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { articleData, sendEvent, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
let account: RegisteredAccount;
let apiKeyId: string;
let key: string;

beforeAll(async () => {
  api = await startTestApi();
  account = await registerAccount(api);
  ({ id: apiKeyId, key } = await createKey(api, account));
});
afterAll(() => api.close());

const queuedEventFor = (accountId: string, slug = uniqueSlug()): QueuedEvent => ({
  id: uuidv7(), // event ids are UUIDv7: the event log is partitioned by their time
  accountId,
  apiKeyId,
  event: 'article.create',
  payload: articleData({ slug }),
  requestId: randomUUID(),
  orderKeys: [slug],
  notifyOnFinish: false,
});

/**
 * A concurrent copy of a request, mid-claim: a connection in a transaction holding the
 * key's lock as a claim takes it, until it commits or rolls back (and is released).
 */
async function holdClaimOf(accountId: string, key: string) {
  const copy = await api.deps.db.pool.connect();
  try {
    await copy.query('BEGIN');
    await copy.query(
      `SELECT pg_advisory_xact_lock(${keyLockArguments('claim')})
       FROM (SELECT $1::uuid AS account_id, $2::text AS key) AS claim`,
      [accountId, key],
    );
    return copy;
  } catch (error) {
    copy.release();
    throw error;
  }
}

type Recorder = ReturnType<typeof createCallRecorder>;
type Claim = ReturnType<typeof claimOf>;

/** A call of one event, without a key or with one: what a single publish records. */
const accept = async (recorder: Recorder, queued: QueuedEvent, claim?: Claim) => {
  const [outcome] = await recorder.record({ accepted: [{ queued, claim }], rejected: [] });
  return outcome;
};

const claimOf = (key: string, body = 'body') => ({
  key,
  requestHash: createHash('sha256').update(body).digest(),
  ttlHours: 24,
});

const rowsOf = (ids: string[]) =>
  api.deps.db.prisma.webhookLog.findMany({
    where: { id: { in: ids } },
    select: { id: true, status: true, sequence: true, receivedAt: true },
    orderBy: { sequence: 'asc' },
  });

describe('grouped writes of calls', () => {
  it('records every concurrent call, in acceptance order within each statement', async () => {
    const recorder = createCallRecorder(api.deps);
    const events = Array.from({ length: 300 }, () => queuedEventFor(account.id));
    const outcomes = await Promise.all(events.map((queued) => accept(recorder, queued)));
    expect(outcomes.every((outcome) => outcome !== undefined && 'receivedAt' in outcome)).toBe(
      true,
    );

    const rows = await rowsOf(events.map((queued) => queued.id));
    const bySequence = rows.map((row) => row.id);
    expect([...bySequence].sort()).toEqual(events.map((queued) => queued.id).sort());
    // 300 events make two statements (256 rows at most each), which may run in either
    // order: concurrent requests have no order between them. Within one statement the
    // sequence follows the order the requests were handed in.
    const inOrder = (batch: typeof events) => {
      const ids = new Set<string>(batch.map((queued) => queued.id));
      expect(bySequence.filter((id) => ids.has(id))).toEqual(batch.map((queued) => queued.id));
    };
    inOrder(events.slice(0, 256));
    inOrder(events.slice(256));
    expect(rows.every((row) => row.status === 'queued')).toBe(true);
    const jobs = await Promise.all(
      events.map((queued) => api.deps.queues.all[0]!.getJob(queued.id)),
    );
    expect(jobs.map((job) => job?.data.eventId)).toEqual(events.map((queued) => queued.id));
  });

  it('fails only the call that cannot be written, not the others of its write', async () => {
    const recorder = createCallRecorder(api.deps);
    const good = [queuedEventFor(account.id), queuedEventFor(account.id)] as const;
    // An id made in the year 2501: no partition of the log takes it, so this row alone is refused.
    const orphan = { ...queuedEventFor(account.id), id: '0f44ad5b-6400-7000-8000-000000000001' };
    const outcomes = await Promise.allSettled(
      [good[0], orphan, good[1]].map((queued) => accept(recorder, queued)),
    );

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const rows = await rowsOf([...good, orphan].map((queued) => queued.id));
    expect(rows.map((row) => row.id).sort()).toEqual(good.map((queued) => queued.id).sort());
    expect(await api.deps.queues.all[0]!.getJob(orphan.id)).toBeUndefined();
  });

  it('answers each of many concurrent requests with its own event', async () => {
    const responses = await Promise.all(
      Array.from({ length: 100 }, () =>
        sendEvent(api, key, 'article.create', articleData({ slug: uniqueSlug() })),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(responses.map(() => 202));
    const ids = responses.map((response) => response.json<{ id: string }>().id);
    expect(new Set(ids).size).toBe(100);
    expect((await rowsOf(ids)).length).toBe(100);
  });
});

describe('grouped writes under Idempotency-Keys', () => {
  it('records requests with keys together: one statement, one receive time', async () => {
    const recorder = createCallRecorder(api.deps);
    const events = Array.from({ length: 50 }, () => queuedEventFor(account.id));
    const outcomes = await Promise.all(
      events.map((queued) => accept(recorder, queued, claimOf(`together-${queued.id}`))),
    );
    // Each request in a transaction of its own would have a receive time of its own.
    const times = new Set(
      outcomes.map((outcome) => (outcome && 'receivedAt' in outcome ? +outcome.receivedAt : 0)),
    );
    expect(times.size).toBe(1);
    expect(times.has(0)).toBe(false);
    expect((await rowsOf(events.map((queued) => queued.id))).length).toBe(50);
    const keys = await api.deps.db.prisma.idempotencyKey.findMany({
      where: { accountId: account.id, key: { startsWith: 'together-' } },
    });
    expect(keys.map((row) => row.eventId).sort()).toEqual(events.map((queued) => queued.id).sort());
  });

  it('records a key repeated in one write once: the same body replays, another is refused', async () => {
    const recorder = createCallRecorder(api.deps);
    const [first, same, other, unkeyed] = Array.from({ length: 4 }, () =>
      queuedEventFor(account.id),
    ) as [ReturnType<typeof queuedEventFor>, ...ReturnType<typeof queuedEventFor>[]];
    const key = `repeated-${first.id}`;
    const outcomes = await Promise.all([
      accept(recorder, first, claimOf(key)),
      accept(recorder, same!, claimOf(key)),
      accept(recorder, other!, claimOf(key, 'another body')),
      accept(recorder, unkeyed!),
    ]);

    expect(outcomes[0]).toMatchObject({ receivedAt: expect.any(Date) });
    expect(outcomes[1]).toEqual({ replayOf: first.id });
    expect(outcomes[2]).toMatchObject({ refused: { code: 'IDEMPOTENCY_KEY_MISMATCH' } });
    expect(outcomes[3]).toMatchObject({ receivedAt: expect.any(Date) });
    const rows = await rowsOf([first, same!, other!, unkeyed!].map((queued) => queued.id));
    expect(rows.map((row) => row.id).sort()).toEqual([first.id, unkeyed!.id].sort());
    expect(await api.deps.queues.all[0]!.getJob(same!.id)).toBeUndefined();
  });

  it('replays a key claimed by an earlier write, and claims anew a key past its TTL', async () => {
    const recorder = createCallRecorder(api.deps);
    const [earlier, again, expired, fresh] = Array.from({ length: 4 }, () =>
      queuedEventFor(account.id),
    ) as [ReturnType<typeof queuedEventFor>, ...ReturnType<typeof queuedEventFor>[]];
    const [kept, old] = [`kept-${earlier.id}`, `old-${earlier.id}`];
    await Promise.all([
      accept(recorder, earlier, claimOf(kept)),
      accept(recorder, expired!, claimOf(old)),
    ]);
    await api.deps.db.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId: account.id, key: old } },
      data: { createdAt: new Date(Date.now() - 25 * 3_600_000) },
    });

    const outcomes = await Promise.all([
      accept(recorder, again!, claimOf(kept)),
      accept(recorder, fresh!, claimOf(old)),
    ]);
    expect(outcomes[0]).toEqual({ replayOf: earlier.id });
    expect(outcomes[1]).toMatchObject({ receivedAt: expect.any(Date) });
    const owner = await api.deps.db.prisma.idempotencyKey.findUniqueOrThrow({
      where: { accountId_key: { accountId: account.id, key: old } },
    });
    expect(owner.eventId).toBe(fresh!.id);
  });

  it('does not hold a write for a key another transaction is claiming', async () => {
    const recorder = createCallRecorder(api.deps);
    const [held, ...others] = Array.from({ length: 5 }, () => queuedEventFor(account.id)) as [
      ReturnType<typeof queuedEventFor>,
      ...ReturnType<typeof queuedEventFor>[],
    ];
    const heldKey = `held-${held.id}`;
    const copy = await holdClaimOf(account.id, heldKey);
    try {
      let heldSettled = false;
      const heldOutcome = accept(recorder, held, claimOf(heldKey)).finally(
        () => (heldSettled = true),
      );
      const othersOutcomes = await Promise.all(
        others.map((queued) => accept(recorder, queued, claimOf(`free-${queued.id}`))),
      );

      expect(othersOutcomes.every((outcome) => outcome && 'receivedAt' in outcome)).toBe(true);
      expect(heldSettled).toBe(false);
      await copy.query('COMMIT');
      expect(await heldOutcome).toMatchObject({ receivedAt: expect.any(Date) });
    } finally {
      copy.release();
    }
    await recorder.drain();
    expect((await rowsOf([held, ...others].map((queued) => queued.id))).length).toBe(5);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE when the claim of a copy outlasts 5 s', async () => {
    const recorder = createCallRecorder(api.deps);
    const queued = queuedEventFor(account.id);
    const heldKey = `stuck-${queued.id}`;
    const copy = await holdClaimOf(account.id, heldKey);
    try {
      await expect(accept(recorder, queued, claimOf(heldKey))).rejects.toMatchObject({
        code: 'IDEMPOTENCY_KEY_IN_USE',
      });
      await copy.query('ROLLBACK');
    } finally {
      copy.release();
    }
    expect(await rowsOf([queued.id])).toEqual([]);
  }, 15_000);

  it('waits for a whole call when one of its keys is held: none of its events is recorded before', async () => {
    const recorder = createCallRecorder(api.deps);
    const events = Array.from({ length: 3 }, () => queuedEventFor(account.id));
    const heldKey = `call-held-${events[1]!.id}`;
    const copy = await holdClaimOf(account.id, heldKey);
    let settled = false;
    let recorded: Promise<unknown>;
    try {
      recorded = recorder
        .record({
          accepted: events.map((queued, index) => ({
            queued,
            claim: claimOf(index === 1 ? heldKey : `call-free-${queued.id}`),
          })),
          rejected: [],
        })
        .finally(() => (settled = true));
      await accept(recorder, queuedEventFor(account.id)); // a later write goes past it
      expect(settled).toBe(false);
      expect(await rowsOf(events.map((queued) => queued.id))).toEqual([]);
      await copy.query('COMMIT');
    } finally {
      copy.release();
    }
    expect(await recorded!).toHaveLength(3);
    const rows = await rowsOf(events.map((queued) => queued.id));
    expect(rows.map((row) => row.id)).toEqual(events.map((queued) => queued.id));
  });

  it('records the refused events of a call held by a key once, when the call is recorded alone', async () => {
    const recorder = createCallRecorder(api.deps);
    const queued = queuedEventFor(account.id);
    const heldKey = `refusals-held-${queued.id}`;
    const refused = {
      id: uuidv7(),
      accountId: account.id,
      apiKeyId,
      requestId: queued.requestId,
      event: 'article.create',
      payload: { event: 'article.create', data: {} },
      error: { code: 'VALIDATION_FAILED', message: 'The payload is invalid' },
    };
    const copy = await holdClaimOf(account.id, heldKey);
    let recorded: Promise<unknown>;
    try {
      recorded = recorder.record({
        accepted: [{ queued, claim: claimOf(heldKey) }],
        rejected: [refused],
      });
      await accept(recorder, queuedEventFor(account.id)); // the held call's write is over
      await copy.query('COMMIT');
    } finally {
      copy.release();
    }
    expect(await recorded!).toEqual([{ receivedAt: expect.any(Date) }]);
    const rows = await rowsOf([queued.id, refused.id]);
    expect(new Map(rows.map((row) => [row.id, row.status]))).toEqual(
      new Map([
        [queued.id, 'queued'],
        [refused.id, 'rejected'],
      ]),
    );
  });
});
