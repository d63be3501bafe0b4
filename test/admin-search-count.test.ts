// The operator search says how many events match: exactly up to EVENT_COUNT_LIMIT, else
// that more do; on the first page only, with the page's own filters.
import { EVENT_COUNT_LIMIT } from '@ingest/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { uuidV7At } from './support/uuid-v7-sql.js';

let api: TestApi;
let admin: RegisteredAccount;
let publisher: RegisteredAccount;
beforeAll(async () => {
  api = await startTestApi();
  admin = await registerAdmin(api);
  publisher = await registerAccount(api);
  // One more event than the bound, a millisecond apart over the last seconds:
  // EVENT_COUNT_LIMIT updates (exactly the bound) and one create; three updates rejected
  // with a code, a slug and a payload value of their own. Rejected, not failed, so no bulk
  // retry of another file takes them.
  await api.deps.db.pool.query(
    `INSERT INTO webhook_logs
       (id, account_id, event, payload, request_id, status, error, order_keys, received_at)
     SELECT ${uuidV7At('t.at')}, $1::uuid,
            CASE WHEN i = 0 THEN 'article.create' ELSE 'article.update' END,
            jsonb_build_object('slug', 'counted-' || i,
                               'category', CASE WHEN i BETWEEN 1 AND 3 THEN $2 END),
            'request-counted-' || i,
            CASE WHEN i BETWEEN 1 AND 3 THEN 'rejected' ELSE 'succeeded' END,
            CASE WHEN i BETWEEN 1 AND 3 THEN '{"code": "COUNTED_CODE", "message": "x"}'::jsonb END,
            CASE WHEN i BETWEEN 1 AND 3 THEN ARRAY[$2] ELSE ARRAY['counted-' || i] END,
            t.at
     FROM generate_series(0, $3::int) AS i
     CROSS JOIN LATERAL (SELECT now() - i * interval '1 millisecond' AS at) AS t`,
    [publisher.id, `counted-${api.tag}`, EVENT_COUNT_LIMIT],
  );
}, 60_000);
afterAll(async () => {
  await api?.close();
});

interface Answer {
  items: Array<{ id: string }>;
  nextCursor: string | null;
  matches?: { count: number; exact: boolean };
}

async function search(query: Record<string, string>): Promise<Answer> {
  const response = await api.app.inject({
    method: 'GET',
    url: `/api/admin/events?${new URLSearchParams({ accountId: publisher.id, ...query }).toString()}`,
    headers: bearer(admin.token),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

describe('the operator search counts its matches', () => {
  it('counts exactly, with the same filters as the page, up to the bound', async () => {
    const value = `counted-${api.tag}`;
    const filters: Array<Record<string, string>> = [
      { status: 'rejected' },
      { error: 'COUNTED_CODE' },
      { slug: value },
      { payload: JSON.stringify({ category: value }) },
    ];
    for (const query of filters) {
      const answer = await search({ ...query, limit: '100' });
      expect(answer.matches, JSON.stringify(query)).toEqual({ count: 3, exact: true });
      expect(answer.items).toHaveLength(3);
    }
    expect((await search({ event: 'article.create' })).matches).toEqual({ count: 1, exact: true });
    expect((await search({ error: 'NO_SUCH_CODE' })).matches).toEqual({ count: 0, exact: true });
    // Exactly the bound is still an exact count.
    expect((await search({ event: 'article.update', limit: '1' })).matches).toEqual({
      count: EVENT_COUNT_LIMIT,
      exact: true,
    });
  });

  it('says "more than the bound" when more match, and counts on the first page only', async () => {
    const first = await search({ limit: '5' });
    expect(first.matches).toEqual({ count: EVENT_COUNT_LIMIT, exact: false });
    expect(first.items).toHaveLength(5);
    expect(first.nextCursor).not.toBeNull();
    const second = await search({ limit: '5', cursor: first.nextCursor! });
    expect(second.items).toHaveLength(5);
    expect(second).not.toHaveProperty('matches');
  });
});
