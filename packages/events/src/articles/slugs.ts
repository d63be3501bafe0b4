import { DERIVED_SLUG_MAX_CHARS } from '@ingest/contracts';
import slugify from '@sindresorhus/slugify';

/** Used when a title has nothing a slug can be made of (only punctuation, say). */
export const FALLBACK_SLUG = 'article';

/**
 * The slug an article gets from its title: diacritics transliterated (`Crème brûlée` ->
 * `creme-brulee`, `Größe` -> `groesse`), lower case, words joined by hyphens, cut at a word
 * boundary to DERIVED_SLUG_MAX_CHARS. The `-N` suffix is chosen when the article is created.
 */
export function slugFromTitle(title: string): string {
  const full = slugify(title, { lowercase: true, decamelize: false });
  if (full.length <= DERIVED_SLUG_MAX_CHARS) return full === '' ? FALLBACK_SLUG : full;
  const cut = full.slice(0, DERIVED_SLUG_MAX_CHARS + 1);
  const lastHyphen = cut.lastIndexOf('-');
  const trimmed = lastHyphen > 0 ? cut.slice(0, lastHyphen) : cut.slice(0, DERIVED_SLUG_MAX_CHARS);
  return trimmed.replace(/-+$/, '');
}

/** `base`, then `base-2`, `base-3`, ...: the candidates for an article's slug, in order. */
export const slugWithSuffix = (base: string, n: number): string => (n <= 1 ? base : `${base}-${n}`);
