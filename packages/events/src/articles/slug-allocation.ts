import { insertArticles, type ArticleRow } from './rows.js';
import { slugWithSuffix } from './slugs.js';
import type { Tx } from '../event-type.js';

const MAX_TRIES = 20;

/** An article to insert under a suffix of `base`, its title's slug, which is taken. */
export interface Suffixed {
  base: string;
  row: ArticleRow;
}

/**
 * Inserts each article under the next suffix of its base, `base-2`, `base-3`, ..., read
 * from the base's counter (article_slug_counters) rather than probed slug by slug, so the
 * thousandth article of a title costs what the second does. Answers the rows as inserted,
 * in the order given. A suffix held by an article the counter never handed out (a slug
 * named explicitly, or one made before the counter) is skipped by moving the counter past it.
 */
export async function insertWithSuffixes(tx: Tx, wanted: Suffixed[]): Promise<ArticleRow[]> {
  const placed = new Map<Suffixed, ArticleRow>();
  let pending = wanted;
  for (let tries = 0; pending.length > 0; tries += 1) {
    if (tries === MAX_TRIES) {
      throw new Error(`no free slug for "${pending[0]!.base}" after ${MAX_TRIES} tries`);
    }
    const next = await reserveSuffixes(tx, pending);
    const rows = pending.map(({ base, row }) => {
      const n = next.get(base)!;
      next.set(base, n + 1);
      return { ...row, slug: slugWithSuffix(base, n) };
    });
    const inserted = await insertArticles(tx, rows);
    pending.forEach((item, i) => {
      if (inserted.has(rows[i]!.id)) placed.set(item, rows[i]!);
    });
    pending = pending.filter((item) => !placed.has(item));
    for (const base of new Set(pending.map((item) => item.base))) await skipTaken(tx, base);
  }
  return wanted.map((item) => placed.get(item)!);
}

/**
 * Takes as many suffixes of each base as `wanted` holds of it, in one statement, and
 * answers the first of each. The counter row stays locked until the transaction ends, so
 * concurrent workers take suffixes of one base in turn and a rollback gives them back.
 * Bases are locked in sorted order: two transactions cannot wait for each other.
 */
async function reserveSuffixes(tx: Tx, wanted: Suffixed[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { base } of wanted) counts.set(base, (counts.get(base) ?? 0) + 1);
  const bases = [...counts.keys()].sort();
  // A new counter starts as if `base` itself were its first: last_suffix = 1 + count.
  // On conflict, count is that same value less one.
  const rows = await tx.$queryRaw<Array<{ base: string; last: number }>>`
    INSERT INTO article_slug_counters AS c (base, last_suffix)
    SELECT w.base, w.count + 1
    FROM unnest(${bases}::text[], ${bases.map((base) => counts.get(base)!)}::int[])
      WITH ORDINALITY AS w(base, count, position)
    ORDER BY w.position
    ON CONFLICT (base) DO UPDATE SET last_suffix = c.last_suffix + excluded.last_suffix - 1
    RETURNING c.base, c.last_suffix AS last`;
  return new Map(rows.map(({ base, last }) => [base, last - counts.get(base)! + 1]));
}

/**
 * Moves the counter of `base` past the run of suffixes after it that articles already
 * hold, in one statement: one index lookup per held suffix, each paid once.
 */
async function skipTaken(tx: Tx, base: string): Promise<void> {
  await tx.$executeRaw`
    WITH RECURSIVE probe (n, taken) AS (
      SELECT last_suffix + 1,
             EXISTS (SELECT 1 FROM articles WHERE slug = ${base}::text || '-' || (last_suffix + 1))
      FROM article_slug_counters WHERE base = ${base}::text
      UNION ALL
      SELECT n + 1, EXISTS (SELECT 1 FROM articles WHERE slug = ${base}::text || '-' || (n + 1))
      FROM probe WHERE taken
    )
    UPDATE article_slug_counters
    SET last_suffix = (SELECT n - 1 FROM probe WHERE NOT taken)
    WHERE base = ${base}::text`;
}
