/**
 * A group commit's waiting list (its `waiting` option) that keeps items by lane (an account)
 * and takes batches in turns: each batch is the next lane's items, first come first; when
 * that lane has fewer than a batch, lanes whose items all fit in the room left join it whole.
 * A lane with a handful waiting thus goes in the next batch to start, never behind a busy
 * lane's backlog nor inside one of its large batches (whose transaction takes longer); a
 * busy lane still gets full batches, one each turn.
 */
export function lanes<Entry>(laneOf: (entry: Entry) => string) {
  // Insertion order is the order of turns: a lane that still has items after its turn
  // goes back to the end.
  const byLane = new Map<string, Entry[]>();
  let size = 0;

  /** Adds to `batch` each lane whose items all fit beside it (up to `maxItems`), whole, in turn. */
  function joinWhole(batch: Entry[], maxItems: number): Entry[] {
    for (const [lane, waiting] of byLane) {
      if (batch.length + waiting.length > maxItems) continue;
      batch.push(...waiting);
      byLane.delete(lane);
    }
    return batch;
  }

  return {
    get size() {
      return size;
    },
    push(entry: Entry) {
      const lane = laneOf(entry);
      const queued = byLane.get(lane);
      if (queued === undefined) byLane.set(lane, [entry]);
      else queued.push(entry);
      size += 1;
    },
    take(maxBatch: number) {
      const first = byLane.entries().next();
      if (first.done === true) return [];
      const [lane, entries] = first.value;
      const batch = entries.splice(0, maxBatch);
      byLane.delete(lane);
      if (entries.length > 0) byLane.set(lane, entries);
      else joinWhole(batch, maxBatch);
      size -= batch.length;
      return batch;
    },
    takeSmall(maxItems: number) {
      const batch = joinWhole([], maxItems);
      size -= batch.length;
      return batch;
    },
  };
}
