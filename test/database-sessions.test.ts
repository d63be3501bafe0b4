// Every connection the service opens runs with the session settings its statements are
// tuned for. JIT above all: a cost estimate alone decides it, and in a soak the apply
// transaction's statement, once estimated at a million rows, spent 2 s compiling for a
// run of 0.1 ms on every call (packages/db/src/client.ts).
import { createDatabase } from '@ingest/db';
import { afterAll, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from './support/test-database.js';

const db = createDatabase({ url: TEST_DATABASE_URL, poolSize: 1, statementTimeoutMs: 7_000 });
afterAll(() => db.close());

it('opens connections with JIT off, custom plans and the statement timeout', async () => {
  const { rows } = await db.pool.query<{ jit: string; plans: string; timeout: string }>(
    `SELECT current_setting('jit') AS jit, current_setting('plan_cache_mode') AS plans,
            current_setting('statement_timeout') AS timeout`,
  );
  expect(rows[0]).toEqual({ jit: 'off', plans: 'force_custom_plan', timeout: '7s' });
  // Prisma's queries go through the same pool, so they run with the same settings.
  const [fromPrisma] = await db.prisma.$queryRaw<Array<{ jit: string }>>`
    SELECT current_setting('jit') AS jit`;
  expect(fromPrisma).toEqual({ jit: 'off' });
});
