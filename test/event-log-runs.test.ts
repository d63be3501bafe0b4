// A line's first event brings the queued events behind it into its transaction (a run).
// Followers are read only from a day before the oldest head on, so that PostgreSQL can
// leave the older partitions out of the plan; a place whose event lies earlier (an API
// whose clock was behind, or an operator's replay of an old event) must end the run
// there, never be skipped by it: the run would apply a later event of the line first.
import { createDatabase, type Database } from '@ingest/db';
import { idBoundaryAt, lockHeadsAndRuns } from '@ingest/event-log';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';

const DAY_MS = 86_400_000;

let scratch: ScratchDatabase;
let db: Database;
let accountId: string;

beforeAll(async () => {
  // Days before today: a follower's id may be older than its head's.
  scratch = await createScratchDatabase({ historyDays: 3 });
  db = createDatabase({ url: scratch.url, poolSize: 2 });
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
     VALUES (gen_random_uuid(), 'runs@example.test', 'runs', 'Runs', 'unused', now())
     RETURNING id`,
  );
  accountId = rows[0]!.id;
}, 60_000);
afterAll(async () => {
  await db?.close();
  await scratch?.drop();
});

/** An id of `ms`, random after its millisecond, as the API makes them. */
const idAt = (ms: number) => idBoundaryAt(ms).slice(0, 14) + uuidv7().slice(14);

/** Records events of one line in this order (their sequence), each with its place. */
async function line(key: string, events: Array<{ id: string; status: string }>) {
  for (const { id, status } of events) {
    await db.pool.query(
      `WITH recorded AS (
         INSERT INTO webhook_logs (id, account_id, event, payload, request_id, status, order_keys,
                                   attempts)
         VALUES ($1, $2, 'article.update', jsonb_build_object('slug', $3::text), 'runs', $4,
                 ARRAY[$3::text], CASE WHEN $4 = 'processing' THEN 1 ELSE 0 END)
         RETURNING account_id, order_keys, sequence, id)
       INSERT INTO pending_order_keys SELECT account_id, unnest(order_keys), sequence, id
       FROM recorded`,
      [id, accountId, key, status],
    );
  }
}

const runOf = (headId: string) =>
  db.prisma.$transaction(async (tx) => {
    const runs = await lockHeadsAndRuns(tx, [{ headId, claimed: true, maxFollowers: 10 }]);
    return runs.get(headId)?.map((follower) => follower.id);
  });

describe("a head's run", () => {
  it('takes the queued events behind it, in order', async () => {
    const now = Date.now();
    const [head, a, b] = [idAt(now), idAt(now + 1), idAt(now + 2)];
    await line('in-order', [
      { id: head, status: 'processing' },
      { id: a, status: 'queued' },
      { id: b, status: 'queued' },
    ]);
    expect(await runOf(head)).toEqual([a, b]);
  });

  it('ends at a follower whose id is more than a day older than the head, and skips none', async () => {
    const now = Date.now();
    const [head, old, after] = [idAt(now), idAt(now - 2 * DAY_MS), idAt(now + 1)];
    await line('old-follower', [
      { id: head, status: 'processing' },
      { id: old, status: 'queued' },
      { id: after, status: 'queued' },
    ]);
    expect(await runOf(head)).toEqual([]);
  });

  it('takes a follower whose id is a little older than the head (clocks that disagree)', async () => {
    const now = Date.now();
    const [head, skewed, after] = [idAt(now), idAt(now - 60_000), idAt(now + 1)];
    await line('skewed-follower', [
      { id: head, status: 'processing' },
      { id: skewed, status: 'queued' },
      { id: after, status: 'queued' },
    ]);
    expect(await runOf(head)).toEqual([skewed, after]);
  });
});
