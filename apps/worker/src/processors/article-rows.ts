import type { Tx } from './catalog.js';

/** An articles row as the worker writes it; created_at and updated_at take their defaults. */
export interface ArticleRow {
  id: string;
  slug: string;
  accountId: string;
  title: string;
  excerpt: string | null;
  body: string[];
  cover: string | null;
  categoryId: string | null;
  readMinutes: number;
  readMinutesComputed: boolean;
}

/**
 * Inserts articles in one statement and says which rows (by id) were inserted; a row
 * whose slug is taken is skipped (ON CONFLICT DO NOTHING: an answer, not an aborted transaction).
 * Every article the worker creates is written here, one row or many. Raw SQL because
 * Prisma's `createMany` cannot say which rows it skipped, and it cost about 0.4 ms of the
 * worker's CPU per row (measured: 6.6 ms for 12 rows against 1.9 ms for one).
 */
export async function insertArticles(tx: Tx, rows: ArticleRow[]): Promise<Set<string>> {
  const column = <Key extends keyof ArticleRow>(key: Key) => rows.map((row) => row[key]);
  const inserted = await tx.$queryRaw<Array<{ id: string }>>`
    INSERT INTO articles (id, slug, account_id, title, excerpt, body, cover, category_id,
                          read_minutes, read_minutes_computed)
    SELECT r.id, r.slug, r.account_id, r.title, r.excerpt,
           ARRAY(SELECT jsonb_array_elements_text(r.body)), r.cover, r.category_id,
           r.read_minutes, r.read_minutes_computed
    FROM unnest(${column('id')}::uuid[], ${column('slug')}::text[],
                ${column('accountId')}::uuid[], ${column('title')}::text[],
                ${column('excerpt')}::text[],
                ${rows.map((row) => JSON.stringify(row.body))}::text[]::jsonb[],
                ${column('cover')}::text[], ${column('categoryId')}::uuid[],
                ${column('readMinutes')}::int[], ${column('readMinutesComputed')}::boolean[])
         AS r(id, slug, account_id, title, excerpt, body, cover, category_id, read_minutes,
              read_minutes_computed)
    ON CONFLICT (slug) DO NOTHING
    RETURNING id`;
  return new Set(inserted.map((row) => row.id));
}
