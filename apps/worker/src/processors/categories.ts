import { v7 as uuidv7 } from 'uuid';
import type { Tx } from './catalog.js';

/**
 * The id of the category named `name` (matched trimmed and ignoring case), created on
 * first use with the casing given. Lock-free once the category exists: an upsert with
 * `DO UPDATE` would lock the category row until commit, serialising every worker that
 * files an article under the same category. When two create it at once, the loser's
 * `DO NOTHING` waits for the winner's commit, and the lookup after it finds the row.
 */
export async function categoryIdFor(tx: Tx, name: string): Promise<string> {
  const displayName = name.trim();
  const nameKey = displayName.toLowerCase();
  const known = committedCategories.get(nameKey);
  if (known !== undefined) return known;
  const rows = await tx.$queryRaw<Array<{ id: string; committed: boolean }>>`
    WITH found AS (
      -- A row this transaction created (an earlier event of the same batch) is found
      -- too, but is not committed yet: it would vanish if the transaction rolled back.
      SELECT id, (xmin = pg_current_xact_id_if_assigned()::xid) IS NOT TRUE AS committed
      FROM categories WHERE name_key = ${nameKey}
    ),
    created AS (
      INSERT INTO categories (id, name, name_key)
      SELECT ${uuidv7()}::uuid, ${displayName}, ${nameKey}
      WHERE NOT EXISTS (SELECT 1 FROM found)
      ON CONFLICT (name_key) DO NOTHING
      RETURNING id
    )
    SELECT id, committed FROM found UNION ALL SELECT id, FALSE FROM created`;
  const row =
    rows[0] ??
    (
      await tx.$queryRaw<Array<{ id: string; committed: boolean }>>`
        SELECT id, TRUE AS committed FROM categories WHERE name_key = ${nameKey}`
    )[0];
  if (row === undefined) throw new Error(`category "${displayName}" could not be found or created`);
  // Only a row another transaction committed is remembered: one created here would
  // vanish if this transaction rolled back.
  if (row.committed) remember(nameKey, row.id);
  return row.id;
}

/**
 * Ids of categories known to exist, by name key. Categories are never deleted, so an id
 * once seen committed stays valid; this spares a statement in most article writes.
 */
const committedCategories = new Map<string, string>();
const MAX_REMEMBERED = 10_000;

function remember(nameKey: string, id: string): void {
  if (committedCategories.size >= MAX_REMEMBERED) committedCategories.clear();
  committedCategories.set(nameKey, id);
}
