import type { Queryable } from '@ingest/event-log';

/** Adds `counts` to the erasure's record, key by key. */
const ADD_COUNTS = `
  UPDATE account_erasures SET counts = (
    SELECT jsonb_object_agg(key, COALESCE((counts ->> key)::int, 0) + COALESCE((($2::jsonb) ->> key)::int, 0))
    FROM (SELECT jsonb_object_keys(counts || $2::jsonb) AS key) AS keys)
  WHERE id = $1`;

/**
 * Adds what a step removed to the erasure's counts (rows by table, Redis keys, members and
 * jobs), in the step's own transaction where it has one, so that a crash loses both or neither.
 */
export async function addCounts(
  on: Queryable,
  erasureId: string,
  counts: Record<string, number>,
): Promise<void> {
  await on.query(ADD_COUNTS, [erasureId, JSON.stringify(counts)]);
}
