import { v7 as uuidv7 } from 'uuid';
import type { CategoryCache } from './category-cache.js';
import type { Tx } from './event-type.js';

/** Category ids by name (matched trimmed and ignoring case), for one transaction. */
export interface CategoryIds {
  /** The id of a category named among those resolved for this transaction. */
  idOf(name: string): string;
}

export interface CategoryResolver {
  /**
   * Finds the categories named, creating those that do not exist yet with the casing
   * given, in one statement, before a transaction applies its changes.
   */
  resolve(tx: Tx, names: Iterable<string>): Promise<CategoryIds>;
}

const keyOf = (name: string) => name.trim().toLowerCase();

/**
 * Categories are created on first use, lock-free once they exist: an upsert with
 * `DO UPDATE` would lock the category row until commit, serialising every transaction
 * that files an article under it. A transaction resolves all the categories its events
 * name at once, in one order (by name key), so that two transactions creating the same
 * new categories cannot deadlock; when two create one at once, the second's `DO NOTHING`
 * waits for the first's commit. Ids seen committed are kept in `cache`. An erasure
 * (@ingest/erasure) deletes the categories only its account's articles used, so a cached
 * id is confirmed before use, in one statement that also holds it until the transaction
 * ends; one gone is found or created again by name.
 */
export function createCategoryResolver(cache: CategoryCache): CategoryResolver {
  return {
    async resolve(tx, names) {
      const given = new Map<string, string>(); // key -> name as first given
      const cached = new Map<string, string>(); // key -> id
      for (const name of names) {
        const key = keyOf(name);
        if (given.has(key)) continue;
        given.set(key, name.trim());
        const known = cache.idOf(key);
        if (known !== undefined) cached.set(key, known);
      }
      const confirmed =
        cached.size === 0 ? new Set<string>() : await confirm(tx, [...cached.values()]);
      const ids = new Map<string, string>();
      const missing = new Map<string, string>();
      for (const [key, name] of given) {
        const id = cached.get(key);
        if (id !== undefined && confirmed.has(id)) ids.set(key, id);
        else missing.set(key, name);
      }
      if (missing.size > 0) {
        for (const { key, id, isCommitted } of await findOrCreate(tx, missing)) {
          ids.set(key, id);
          if (isCommitted) cache.remember(key, id);
        }
      }
      return {
        idOf(name) {
          const id = ids.get(keyOf(name));
          if (id === undefined) throw new Error(`category "${name}" was not resolved`);
          return id;
        },
      };
    },
  };
}

/**
 * The ids of `ids` whose category is still there, each locked as the articles' foreign key
 * locks it (KEY SHARE, in id order) so that it stays until the transaction ends.
 */
async function confirm(tx: Tx, ids: string[]): Promise<Set<string>> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM categories WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR KEY SHARE`;
  return new Set(rows.map((row) => row.id));
}

type Found = { key: string; id: string; isCommitted: boolean };

async function findOrCreate(tx: Tx, missing: Map<string, string>): Promise<Found[]> {
  const wanted = [...missing].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const keys = wanted.map(([key]) => key);
  const rows = await tx.$queryRaw<Found[]>`
    WITH wanted AS (
      SELECT * FROM unnest(${keys}::text[], ${wanted.map(([, name]) => name)}::text[],
                           ${wanted.map(() => uuidv7())}::uuid[]) AS w(name_key, name, id)
    ),
    found AS (
      -- A row this transaction created (an earlier batch of the same transaction) is
      -- found too, but is not committed yet.
      SELECT c.name_key, c.id,
             (c.xmin = pg_current_xact_id_if_assigned()::xid) IS NOT TRUE AS committed
      FROM categories c JOIN wanted w ON w.name_key = c.name_key
    ),
    created AS (
      INSERT INTO categories (id, name, name_key)
      SELECT w.id, w.name, w.name_key FROM wanted w
      WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.name_key = w.name_key)
      ORDER BY w.name_key
      ON CONFLICT (name_key) DO NOTHING
      RETURNING name_key, id
    )
    SELECT name_key AS key, id, committed AS "isCommitted" FROM found
    UNION ALL SELECT name_key, id, FALSE FROM created`;
  // A key neither found nor created was created by another transaction that committed
  // after this statement began: its row is there now.
  const answered = new Set(rows.map((row) => row.key));
  const late = keys.filter((key) => !answered.has(key));
  if (late.length === 0) return rows;
  const more = await tx.$queryRaw<Found[]>`
    SELECT name_key AS key, id, TRUE AS "isCommitted" FROM categories
    WHERE name_key = ANY(${late}::text[])`;
  if (more.length !== late.length) throw new Error('a category could not be found or created');
  return [...rows, ...more];
}

/** The category an event's `data` names, if any: resolved with the others before applying. */
export const categoriesNamedBy = (data: unknown): string[] =>
  typeof data === 'object' &&
  data !== null &&
  'category' in data &&
  typeof data.category === 'string'
    ? [data.category]
    : [];
