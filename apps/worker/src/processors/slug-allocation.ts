import { slugWithSuffix } from '@ingest/domain';
import type { Tx } from './tx.js';

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
    // Slugs are [a-z0-9-], so LIKE has no wildcard to escape in `base`.
    const rows = await tx.$queryRaw<Array<{ slug: string }>>`
      SELECT slug FROM articles WHERE slug = ${base} OR slug LIKE ${`${base}-%`}`;
    const taken = new Set(rows.map((row) => row.slug));
    let n = 1;
    while (taken.has(slugWithSuffix(base, n))) n += 1;
    const slug = slugWithSuffix(base, n);
    if (await insert(slug)) return slug;
  }
  throw new Error(`no free slug for "${base}" after ${MAX_TRIES} tries`);
}
