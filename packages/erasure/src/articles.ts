import type { Queryable } from '@ingest/event-log';

/**
 * Deletes the picked articles, and the categories and slug counters they used that no
 * article of another account uses. A counter `base` is used by the articles at `base` and
 * at the suffixes it handed out, `base-2` to `base-<last_suffix>` (slug-allocation.ts in
 * @ingest/events). The articles of the account itself are left out of both checks: those
 * not deleted yet go in a later batch.
 */
const DELETE_ARTICLES = `
  WITH gone_articles AS (DELETE FROM articles WHERE id = ANY($2::uuid[]) RETURNING 1),
  gone_categories AS (
    DELETE FROM categories c WHERE c.id = ANY($3::uuid[])
      AND NOT EXISTS (SELECT 1 FROM articles a WHERE a.category_id = c.id AND a.account_id <> $1)
    RETURNING 1),
  gone_counters AS (
    DELETE FROM article_slug_counters c WHERE c.base = ANY($4::text[])
      AND NOT EXISTS (
        SELECT 1 FROM generate_series(1, c.last_suffix) AS n(n)
        JOIN articles a ON a.slug = CASE WHEN n.n = 1 THEN c.base ELSE c.base || '-' || n.n END
        WHERE a.account_id <> $1)
    RETURNING 1)
  SELECT jsonb_build_object(
    'articles', (SELECT count(*) FROM gone_articles),
    'categories', (SELECT count(*) FROM gone_categories),
    'article_slug_counters', (SELECT count(*) FROM gone_counters)) AS deleted`;

/** The bases a slug may have been counted under: itself, and what comes before `-<n>`. */
const basesOf = (slug: string): string[] => {
  const suffixed = /^(.+)-\d+$/.exec(slug);
  return suffixed?.[1] === undefined ? [slug] : [slug, suffixed[1]];
};

/**
 * Deletes up to `limit` (null: all) of an account's articles with the categories and slug
 * counters only they used, in the caller's transaction; rows deleted, by table. Neither
 * table names an account: a category is made by the first article that names it, a counter
 * by a title's second use, so what the account's articles used and no other account's does
 * is what its content made. Categories, then counters, are locked before the check, in the
 * order workers take them: another account's article that names one has either committed
 * when the check reads, and keeps it, or waits and then finds it gone, and its worker makes
 * it again (categories.ts and slug-allocation.ts in @ingest/events).
 */
export async function deleteAccountArticles(
  tx: Queryable,
  accountId: string,
  limit: number | null,
): Promise<Record<string, number>> {
  const { rows: picked } = await tx.query<{ id: string; slug: string; category_id: string | null }>(
    'SELECT id, slug, category_id FROM articles WHERE account_id = $1 LIMIT $2',
    [accountId, limit],
  );
  const categories = [...new Set(picked.flatMap((row) => row.category_id ?? []))].sort();
  const bases = [...new Set(picked.flatMap((row) => basesOf(row.slug)))].sort();
  await tx.query('SELECT 1 FROM categories WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [
    categories,
  ]);
  await tx.query(
    'SELECT 1 FROM article_slug_counters WHERE base = ANY($1::text[]) ORDER BY base FOR UPDATE',
    [bases],
  );
  const { rows } = await tx.query<{ deleted: Record<string, number> }>(DELETE_ARTICLES, [
    accountId,
    picked.map((row) => row.id),
    categories,
    bases,
  ]);
  return rows[0]?.deleted ?? {};
}
