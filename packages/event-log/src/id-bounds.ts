/**
 * The lowest and highest of event ids, for a statement that reaches its events through a
 * join to say `id BETWEEN` them. The log is partitioned by id (UUIDv7: time first), and
 * PostgreSQL prunes partitions while planning by `id = ANY(<values>)` or a range of
 * values, never by a join: without a bound it plans, opens and locks every partition of
 * the table the join reaches, a cost that grows with the history.
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
