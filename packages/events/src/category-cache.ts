/**
 * Category ids by name key, for the transactions of one worker runtime. Only ids seen
 * committed belong here: one a transaction created would vanish if that transaction
 * rolled back. An erasure may delete a category since: the resolver confirms a cached id
 * before it uses it (categories.ts).
 */
export interface CategoryCache {
  idOf(key: string): string | undefined;
  remember(key: string, id: string): void;
}

/** Ids kept by default; categories are few in practice, this only bounds the memory. */
const DEFAULT_MAX_ENTRIES = 10_000;

/** A cache of at most `maxEntries` ids; past that, the one remembered first is forgotten. */
export function createCategoryCache(maxEntries = DEFAULT_MAX_ENTRIES): CategoryCache {
  // A Map iterates in insertion order: its first key is the one remembered first.
  const ids = new Map<string, string>();
  return {
    idOf: (key) => ids.get(key),
    remember(key, id) {
      ids.delete(key);
      ids.set(key, id);
      const oldest = ids.keys().next();
      if (ids.size > maxEntries && !oldest.done) ids.delete(oldest.value);
    },
  };
}
