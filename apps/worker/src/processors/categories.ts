import { v7 as uuidv7 } from 'uuid';
import type { Tx } from './processor.js';

/**
 * The id of the category named `name` (matched trimmed and ignoring case), created on
 * first use with the casing given. Safe under concurrency: the insert and the lookup
 * are one statement on the unique name key.
 */
export async function categoryIdFor(tx: Tx, name: string): Promise<string> {
  const displayName = name.trim();
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    INSERT INTO categories (id, name, name_key)
    VALUES (${uuidv7()}::uuid, ${displayName}, ${displayName.toLowerCase()})
    ON CONFLICT (name_key) DO UPDATE SET name_key = EXCLUDED.name_key
    RETURNING id`;
  const [row] = rows;
  if (row === undefined) throw new Error('category upsert returned no row');
  return row.id;
}
