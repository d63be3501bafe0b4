// Articles already stored when a drain starts, as a publisher platform has after months:
// written straight into `articles` in SQL (the accept path would take minutes), spread
// over the bench's accounts, then vacuumed and analysed as autovacuum would have by then.
import type pg from 'pg';

/**
 * Stores `count` articles and returns how long that took. Slugs are `stored-headline-<n>`:
 * the first SHARED_TITLES (event-mix.ts) of them are what the `titled` stream's creates
 * without a slug derive from their titles, so those creates find their title's slug
 * taken and look for the next free suffix among a million articles. Bodies are one short
 * paragraph (about 300 bytes a row): the table is as long as a real one, if narrower.
 */
export async function storeArticles(
  db: pg.Pool,
  accountIds: string[],
  count: number,
): Promise<{ seconds: number }> {
  const started = performance.now();
  await db.query(
    `INSERT INTO articles (id, slug, account_id, title, body, read_minutes,
                           read_minutes_computed, updated_at)
     SELECT gen_random_uuid(), 'stored-headline-' || n, ($2::uuid[])[1 + n % cardinality($2::uuid[])],
            'Stored headline ' || n,
            ARRAY['A paragraph of an article stored before the run, number ' || n || '.'], 1,
            false, now()
     FROM generate_series(1, $1::int) AS n`,
    [count, accountIds],
  );
  await db.query('VACUUM ANALYZE articles');
  return { seconds: (performance.now() - started) / 1000 };
}
