// The operator search reads the partitioned log through id windows, newest first, and
// stops once a page is settled (apps/api/src/services/admin/newest-first.ts). Pages must
// come out exactly as one query over the whole log would give them: every event once, in
// order, whichever windows a page spans, also where an event's id time and its
// received_at disagree by up to the clock margin, and whatever the filters; and the first
// page's count of matches is the number of them.
import type { EventSearchQuery, EventSearchResult } from '@ingest/contracts';
import { searchEvents } from '@ingest/api/event-search';
import { createDatabase, type Database } from '@ingest/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database.js';
import { uuidV7At } from './support/uuid-v7-sql.js';

const HISTORY_DAYS = 20;

let scratch: ScratchDatabase;
let db: Database;
let accountId: string;
beforeAll(async () => {
  scratch = await createScratchDatabase({ historyDays: HISTORY_DAYS });
  db = createDatabase({ url: scratch.url, poolSize: 2 });
  const client = await scratch.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO accounts (id, email, handle, name, password_hash, updated_at)
       VALUES (gen_random_uuid(), 'windows@example.test', 'windows', 'Windows', 'unused', now())
       RETURNING id`,
    );
    accountId = rows[0]!.id;
    // An event every 5 hours over the history, and a burst in the last hours: the page
    // spans the newest window, the week before it and the rest. Received 0 to 50 minutes
    // away from its id's time, either way (clocks that disagree, within the margin), and
    // some in the same millisecond, so ties fall to the id.
    await client.query(
      `INSERT INTO webhook_logs
         (id, account_id, event, payload, request_id, status, order_keys, received_at)
       SELECT ${uuidV7At('t.at')}, $1::uuid,
              (ARRAY['article.create', 'article.update', 'article.delete'])[1 + i % 3],
              jsonb_build_object('slug', 'slug-' || i % 7, 'category', 'Cat ' || i % 4),
              'request-' || i,
              CASE WHEN i % 5 = 0 THEN 'failed' ELSE 'succeeded' END,
              ARRAY['slug-' || i % 7],
              t.at + ((i * 37) % 101 - 50) * interval '1 minute'
       FROM generate_series(1, $2::int) AS i
       CROSS JOIN LATERAL (SELECT CASE WHEN i % 10 = 0 THEN date_trunc('second', now())
                                       WHEN i <= 90 THEN now() - i * interval '5 hours'
                                       ELSE now() - (i - 90) * interval '3 minutes' END AS at) t`,
      [accountId, 130],
    );
    // Around each of the last ten midnights (where windows start, as partitions do): an
    // event made just before it but received well after, which sorts ahead of one made
    // and received just after it. A walk that took rows of the newer window as settled
    // without the clock margin would put them in the wrong order.
    await client.query(
      `INSERT INTO webhook_logs
         (id, account_id, event, payload, request_id, status, order_keys, received_at)
       SELECT ${uuidV7At('t.made')}, $1::uuid, 'article.update', '{"slug": "edge"}',
              'request-edge', 'succeeded', ARRAY['edge'], t.received
       FROM generate_series(0, 9) AS d
       CROSS JOIN LATERAL (VALUES
         (date_trunc('day', now()) - d * interval '1 day' - interval '10 minutes',
          date_trunc('day', now()) - d * interval '1 day' + interval '40 minutes'),
         (date_trunc('day', now()) - d * interval '1 day' + interval '5 minutes',
          date_trunc('day', now()) - d * interval '1 day' + interval '10 minutes')) AS t(made, received)
       WHERE t.made < now()`,
      [accountId],
    );
    // A payload value common in the newest window (where the first window starts, an hour
    // back), all received within the clock margin of its start, and one event made before
    // it but received after them: a probe of the newest window finds more than a page, and
    // that page is not settled (the older event sorts first).
    await client.query(
      `INSERT INTO webhook_logs
         (id, account_id, event, payload, request_id, status, order_keys, received_at)
       SELECT ${uuidV7At('t.made')}, $1::uuid, 'article.update', '{"slug": "dense"}',
              'request-dense', 'succeeded', ARRAY['dense'], t.received
       FROM (SELECT date_trunc('day', now() - interval '1 hour') AS w) AS start
       CROSS JOIN LATERAL (VALUES
         (w - interval '1 minute', w + interval '30 minutes'),
         (w + interval '5 minutes', w + interval '6 minutes'),
         (w + interval '5 minutes', w + interval '7 minutes'),
         (w + interval '5 minutes', w + interval '8 minutes')) AS t(made, received)`,
      [accountId],
    );
  } finally {
    await client.end();
  }
}, 60_000);
afterAll(async () => {
  await db?.close();
  await scratch?.drop();
});

const deps = () => ({ db, config: { eventLog: { interval: 'day' } } }) as never;

/**
 * Every page of `query`, `limit` at a time, following the cursors; the first page's count,
 * summed over the same windows, must be all of them.
 */
async function allPages(query: Omit<EventSearchQuery, 'limit'>, limit: number) {
  const ids: string[] = [];
  let cursor: string | undefined;
  let counted: EventSearchResult['matches'];
  for (let pages = 0; pages < 1_000; pages += 1) {
    const page: EventSearchResult = await searchEvents(deps(), {
      ...query,
      limit,
      ...(cursor === undefined ? {} : { cursor }),
    });
    counted ??= page.matches;
    ids.push(...page.items.map((event) => event.id));
    if (page.nextCursor === null) {
      expect(counted).toEqual({ count: ids.length, exact: true });
      return ids;
    }
    cursor = page.nextCursor;
  }
  throw new Error('more than 1,000 pages');
}

/** The same search as one query over the whole log: what the pages must add up to. */
async function expected(where: string, values: unknown[] = []) {
  const { rows } = await db.pool.query<{ id: string }>(
    `SELECT id FROM webhook_logs WHERE account_id = $1::uuid AND ${where}
     ORDER BY received_at DESC, id DESC`,
    [accountId, ...values],
  );
  return rows.map((row) => row.id);
}

describe('the operator search reads the log newest window first', () => {
  it('pages through every event once, in order, across windows', async () => {
    const all = await expected('TRUE');
    expect(all.length).toBeGreaterThanOrEqual(149);
    for (const limit of [1, 7, 20, 100]) {
      expect(await allPages({ accountId }, limit), `limit ${limit}`).toEqual(all);
    }
  });

  it('gives the same pages with each filter', async () => {
    expect(await allPages({ accountId, status: 'failed' }, 4)).toEqual(
      await expected(`status = 'failed'`),
    );
    expect(await allPages({ accountId, slug: 'slug-3' }, 3)).toEqual(
      await expected(`order_keys @> ARRAY['slug-3']`),
    );
    // A common value (the newest events' payloads answer it) and a rare one (the index).
    expect(await allPages({ accountId, payload: { category: 'Cat 1' } }, 5)).toEqual(
      await expected(`payload @> '{"category": "Cat 1"}'`),
    );
    expect(
      await allPages({ accountId, payload: { slug: 'slug-6', category: 'Cat 2' } }, 2),
    ).toEqual(await expected(`payload @> '{"slug": "slug-6", "category": "Cat 2"}'`));
    // Common in the newest window, but its page there is not settled.
    expect(await allPages({ accountId, payload: { slug: 'dense' } }, 2)).toEqual(
      await expected(`payload @> '{"slug": "dense"}'`),
    );
  });

  it('keeps to from and to, wherever they fall', async () => {
    const day = 86_400_000;
    for (const [fromDays, toDays] of [
      [3, 1],
      [12, 9],
      [19, 0],
      [30, 10],
    ] as const) {
      const from = new Date(Date.now() - fromDays * day).toISOString();
      const to = new Date(Date.now() - toDays * day).toISOString();
      expect(
        await allPages({ accountId, from, to }, 6),
        `${fromDays} to ${toDays} days ago`,
      ).toEqual(await expected(`received_at >= $2 AND received_at < $3`, [from, to]));
    }
  });
});
