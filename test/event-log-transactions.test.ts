// The event log's own transactions (the idempotent path records through one) hold a
// connection between statements: losing it there must fail the work, not the process.
import { inTransaction } from '@ingest/event-log';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from './support/test-database.js';

const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
pool.on('error', () => {});
afterAll(() => pool.end());

describe('inTransaction', () => {
  it('fails the work when its connection is lost mid-transaction, and does not reuse it', async () => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const work = inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        // Idle between statements: the loss arrives as an 'error' event on the client.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await client.query('SELECT 1');
      });
      await expect(work).rejects.toThrow();
      // The pool's one connection was destroyed, not handed back broken.
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    } finally {
      await admin.end();
    }
  });
});
