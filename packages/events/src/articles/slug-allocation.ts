import { slugWithSuffix } from './slugs.js';
import type { Tx } from '../event-type.js';

const MAX_TRIES = 20;

/**
 * Inserts with the first free slug of `base`, `base-2`, `base-3`, ...; `insert` returns
 * false when its slug turned out taken (another worker got there first), and the next
 * free one is tried.
 */
export async function insertWithFreeSlug(
  tx: Tx,
  base: string,
  insert: (slug: string) => Promise<boolean>,
): Promise<string> {
  for (let tries = 0; tries < MAX_TRIES; tries += 1) {
    const slug = slugWithSuffix(base, await firstFreeSuffix(tx, base));
    if (await insert(slug)) return slug;
  }
  throw new Error(`no free slug for "${base}" after ${MAX_TRIES} tries`);
}

/**
 * The smallest n whose `slugWithSuffix(base, n)` no article holds, in one round trip: the
 * recursion probes `base`, `base-2`, ... in the slug's unique index up to the first miss,
 * so a create costs one index lookup per article holding its title's slug. A search of
 * `base-%` would read every slug that merely starts like it, and under any collation but C
 * scan the whole table.
 */
async function firstFreeSuffix(tx: Tx, base: string): Promise<number> {
  const rows = await tx.$queryRaw<Array<{ n: number }>>`
    WITH RECURSIVE probe (n, taken) AS (
      SELECT 1, EXISTS (SELECT 1 FROM articles WHERE slug = ${base}::text)
      UNION ALL
      SELECT n + 1, EXISTS (SELECT 1 FROM articles WHERE slug = ${base}::text || '-' || (n + 1))
      FROM probe WHERE taken
    )
    SELECT n FROM probe WHERE NOT taken`;
  const n = rows[0]?.n;
  if (n === undefined) throw new Error(`slug probe for "${base}" returned no row`);
  return n;
}
