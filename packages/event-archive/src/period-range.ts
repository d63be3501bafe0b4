import { quoted, type Queryable } from '@ingest/event-log';

/** A period's id range as moments: ids made in [fromMs, toMs); fromMs null when open below. */
export interface PeriodRange {
  fromMs: number | null;
  toMs: number;
}

const UUID = "'([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})'::uuid";
const LOWER = new RegExp(`\\(id >= ${UUID}\\)`);
const UPPER = new RegExp(`\\(id < ${UUID}\\)`);

/** The moment of a uuid's first 48 bits, which is a UUIDv7's time (any version's bound). */
const prefixMs = (uuid: string): number =>
  Number.parseInt(uuid.replaceAll('-', '').slice(0, 12), 16);
/** Whether a uuid is exactly the boundary of its moment (all bits past the first 48 zero). */
const isBoundary = (uuid: string): boolean => /^0+$/.test(uuid.replaceAll('-', '').slice(12));

/**
 * The range of a detached webhook_logs table. Read from the CHECK constraint that DETACH
 * ... CONCURRENTLY leaves (a copy of the partition bound), so the range is the partition's
 * exact one however few rows it holds, and a restored partition covers what the original
 * did. A table detached otherwise has no such constraint: its ids' extremes are used, a
 * range that holds every row it has and is as narrow as can be.
 */
export async function periodRange(on: Queryable, logsTable: string): Promise<PeriodRange> {
  const { rows: checks } = await on.query<{ def: string }>(
    `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
     WHERE conrelid = $1::regclass AND contype = 'c'`,
    [quoted(logsTable)],
  );
  for (const { def } of checks) {
    const upper = UPPER.exec(def)?.[1];
    if (upper === undefined) continue;
    const lower = LOWER.exec(def)?.[1];
    return {
      // The bounds are boundaries on the grid; a hand-made one in mid-millisecond is
      // widened to the whole millisecond, which still holds exactly the same ids.
      fromMs: lower === undefined ? null : prefixMs(lower),
      toMs: prefixMs(upper) + (isBoundary(upper) ? 0 : 1),
    };
  }
  const { rows } = await on.query<{ min: string | null; max: string | null }>(
    `SELECT min(id)::text AS min, max(id)::text AS max FROM ${quoted(logsTable)}`,
  );
  const { min, max } = rows[0] ?? { min: null, max: null };
  if (min === null || max === null)
    throw new Error(
      `cannot tell the id range of ${logsTable}: it has no partition-bound CHECK constraint and no rows`,
    );
  return { fromMs: prefixMs(min), toMs: prefixMs(max) + 1 };
}
