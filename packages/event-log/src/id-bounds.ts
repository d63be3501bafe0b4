/**
 * The lowest and highest of event ids, for a statement that reaches its events through a
 * join to say `id BETWEEN` them. The log is partitioned by id (UUIDv7: time first), and
 * PostgreSQL prunes partitions while planning by `id = ANY(<values>)` or a range of
 * values, never by a join. Without a bound it plans, opens and locks every partition of
 * the table the join reaches: beside 40 days of history that was most of the statement's
 * cost, and the worker's PostgreSQL CPU per event tripled (bench, `--history`).
 * Lower-case hex sorts as PostgreSQL orders uuids (byte by byte).
 */
export function idBounds(ids: readonly string[]): [lowest: string, highest: string] {
  if (ids.length === 0) throw new Error('idBounds of no ids');
  let lowest = ids[0]!.toLowerCase();
  let highest = lowest;
  for (const id of ids) {
    const lower = id.toLowerCase();
    if (lower < lowest) lowest = lower;
    if (lower > highest) highest = lower;
  }
  return [lowest, highest];
}

/** The millisecond a UUIDv7 was made in: its first 48 bits. */
export const msOfId = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

/** The lowest UUIDv7 of the millisecond `ms` (0 for any earlier): where its ids begin. */
export function firstIdAt(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-0000-0000-000000000000`;
}
