// A search that asks every partition of the log runs with a plan made once per
// connection, for any values (apps/api/src/services/admin/every-partition.ts), where every
// other statement is planned for its values. What must hold: the statement really runs
// from a generic plan, the settings that make it so end with it, and a statement that
// fails leaves its connection as usable as it found it.
import { readEveryPartition } from '@ingest/api/every-partition';
import { createDatabase, Prisma, type Database } from '@ingest/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from './support/test-database.js';

let db: Database;
beforeAll(() => {
  // One connection: the statement, and the checks after it, share its session.
  db = createDatabase({ url: TEST_DATABASE_URL, poolSize: 1 });
});
afterAll(() => db?.close());

const search = (payload: object) => Prisma.sql`
  WITH found AS MATERIALIZED (
    SELECT * FROM webhook_logs WHERE payload @> ${JSON.stringify(payload)}::jsonb)
  SELECT id FROM found ORDER BY received_at DESC, id DESC LIMIT ${21}`;

async function sessionState() {
  const { rows } = await db.pool.query<{
    mode: string;
    jit: string;
    statements: Array<{ generic: number; custom: number }>;
  }>(
    `SELECT current_setting('plan_cache_mode') AS mode, current_setting('jit') AS jit,
            (SELECT coalesce(json_agg(json_build_object('generic', generic_plans,
                                                        'custom', custom_plans)), '[]')
             FROM pg_prepared_statements WHERE name LIKE 'every-partition-%') AS statements`,
  );
  return rows[0]!;
}

describe('reads of every partition', () => {
  it('run from one generic plan, whatever the values, and leave the session as it was', async () => {
    const before = await sessionState();
    expect(before.mode).toBe('force_custom_plan');
    for (const slug of ['one', 'two', 'three']) {
      expect(await readEveryPartition(db.pool, search({ slug: `absent-${slug}` }))).toEqual([]);
    }
    const after = await sessionState();
    // The same text, so one statement, planned generically at each of its three runs.
    expect(after.statements).toEqual([{ generic: 3, custom: 0 }]);
    // Set for the statement's transaction only: still set would mean still in it.
    expect(after.mode).toBe(before.mode);
    expect(after.jit).toBe(before.jit);
  });

  it('leave the connection usable when the statement fails', async () => {
    const broken = Prisma.sql`SELECT id FROM webhook_logs WHERE id = ${'not a uuid'}::uuid`;
    await expect(readEveryPartition(db.pool, broken)).rejects.toThrow(/uuid/);
    // Left in its failed transaction, the connection would refuse this query; left in a
    // transaction at all, the setting would still be the generic one.
    expect((await sessionState()).mode).toBe('force_custom_plan');
    expect(await readEveryPartition(db.pool, search({ slug: 'after-a-failure' }))).toEqual([]);
  });
});
