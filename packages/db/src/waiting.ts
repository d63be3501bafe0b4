/** Where a group commit keeps the items waiting for a batch, and how it takes a batch. */
export interface Waiting<Entry> {
  readonly size: number;
  push(entry: Entry): void;
  take(maxBatch: number): Entry[];
  /** Only groups with at most `maxItems` waiting, whole, in turn, up to `maxItems` items. */
  takeSmall(maxItems: number): Entry[];
}

/** First come, first written: a batch holds entries up to `maxBatch` by size, at least one. */
export function fifo<Entry>(sizeOf: (entry: Entry) => number = () => 1): Waiting<Entry> {
  let entries: Entry[] = [];
  return {
    get size() {
      return entries.length;
    },
    push: (entry) => entries.push(entry),
    take(maxBatch) {
      let count = 0;
      let size = 0;
      for (const entry of entries) {
        size += sizeOf(entry);
        if (count > 0 && size > maxBatch) break;
        count += 1;
      }
      const batch = entries.slice(0, count);
      entries = entries.slice(count);
      return batch;
    },
    // Without groups there is nothing small to tell apart.
    takeSmall: () => [],
  };
}
