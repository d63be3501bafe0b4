/**
 * Changes in layers by what they address: the first change of each key, then the second,
 * ... Within a layer no two address the same record, so a layer can go in one statement;
 * layers in order keep each record's changes in the order given.
 */
export function byOccurrence<Item>(items: Item[], keyOf: (item: Item) => string): Item[][] {
  const seen = new Map<string, number>();
  const layers: Item[][] = [];
  for (const item of items) {
    const key = keyOf(item);
    const layer = seen.get(key) ?? 0;
    seen.set(key, layer + 1);
    (layers[layer] ??= []).push(item);
  }
  return layers;
}

/** The list as a tuple of at least one (what zod's unions take); throws when it is empty. */
export function nonEmpty<Item>(items: readonly Item[]): [Item, ...Item[]] {
  const [first, ...rest] = items;
  if (first === undefined) throw new Error('expected at least one item');
  return [first, ...rest];
}
