import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createGroupCommit, type Submitted } from './group-commit.js';

/** A group commit whose writes take `writeMs` and answer each item with itself doubled. */
function doubling(options: { maxInFlight: number; maxBatch: number; writeMs: number }) {
  const batches: number[][] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const group = createGroupCommit<number, number>({
    ...options,
    async write(batch: Array<Submitted<number, number>>) {
      batches.push(batch.map((submitted) => submitted.item));
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await sleep(options.writeMs);
      inFlight -= 1;
      for (const submitted of batch) submitted.resolve(submitted.item * 2);
    },
  });
  return { group, batches, mostInFlight: () => mostInFlight };
}

describe('group commit', () => {
  it('writes an item alone, at once, when nothing else is waiting', async () => {
    const { group, batches } = doubling({ maxInFlight: 2, maxBatch: 10, writeMs: 1 });
    expect(await group.submit(1)).toBe(2);
    expect(await group.submit(2)).toBe(4);
    expect(batches).toEqual([[1], [2]]);
  });

  it('gathers items that arrive while writes are busy, within the limits', async () => {
    const { group, batches, mostInFlight } = doubling({ maxInFlight: 1, maxBatch: 4, writeMs: 20 });
    const first = group.submit(0);
    await sleep(5); // the first write is under way
    const rest = Array.from({ length: 9 }, (_, i) => group.submit(i + 1));
    expect(await Promise.all([first, ...rest])).toEqual(
      Array.from({ length: 10 }, (_, i) => i * 2),
    );
    expect(batches).toEqual([[0], [1, 2, 3, 4], [5, 6, 7, 8], [9]]);
    expect(mostInFlight()).toBe(1);
  });

  it('rejects the items of a write that throws, and goes on with the next', async () => {
    let calls = 0;
    const group = createGroupCommit<number, number>({
      maxInFlight: 1,
      maxBatch: 10,
      async write(batch) {
        calls += 1;
        if (calls === 1) throw new Error('disk full');
        for (const submitted of batch) submitted.resolve(submitted.item);
      },
    });
    await expect(group.submit(1)).rejects.toThrow('disk full');
    await expect(group.submit(2)).resolves.toBe(2);
  });

  it('drains: resolves once every submitted item is settled', async () => {
    const { group } = doubling({ maxInFlight: 1, maxBatch: 2, writeMs: 10 });
    const settled: number[] = [];
    for (let i = 0; i < 5; i += 1) void group.submit(i).then((result) => settled.push(result));
    await group.drain();
    expect(settled.sort((a, b) => a - b)).toEqual([0, 2, 4, 6, 8]);
    await expect(group.drain()).resolves.toBeUndefined();
  });
});
