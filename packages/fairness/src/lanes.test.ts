import { setTimeout as sleep } from 'node:timers/promises';
import { createGroupCommit } from '@ingest/db';
import { describe, expect, it } from 'vitest';
import { lanes } from './lanes.js';

const laneOf = (item: string) => item.split(':')[0]!;
const items = (lane: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${lane}:${i}`);

describe('batch lanes', () => {
  it("puts a lane that came behind another's backlog in the next batch, alone", () => {
    const waiting = lanes(laneOf);
    for (const item of [...items('busy', 100), 'quiet:0']) waiting.push(item);
    expect(waiting.take(32)).toEqual(items('busy', 32));
    // quiet's turn: busy's 68 would not fit beside it, so quiet goes alone.
    expect(waiting.take(32)).toEqual(['quiet:0']);
    expect(waiting.take(32)).toEqual(items('busy', 64).slice(32));
    expect(waiting.size).toBe(36);
  });

  it('gives busy lanes full batches in turns, and lets small lanes that fit join whole', () => {
    const waiting = lanes(laneOf);
    for (const item of [...items('a', 40), ...items('b', 40), ...items('c', 3), ...items('d', 2)]) {
      waiting.push(item);
    }
    expect(waiting.take(32)).toEqual(items('a', 32));
    expect(waiting.take(32)).toEqual(items('b', 32));
    // c's turn: c and d fit whole; a and b (8 each) would too, in turn order: a first.
    expect(waiting.take(32)).toEqual([
      ...items('c', 3),
      ...items('d', 2),
      ...items('a', 40).slice(32),
      ...items('b', 40).slice(32),
    ]);
    expect(waiting.size).toBe(0);
    expect(waiting.take(32)).toEqual([]);
  });

  it('takes only the small lanes, whole, for a spare batch', () => {
    const waiting = lanes(laneOf);
    for (const item of [
      ...items('busy', 50),
      ...items('a', 2),
      ...items('b', 3),
      ...items('c', 4),
    ]) {
      waiting.push(item);
    }
    // a and b fit in 6; c would not, nor busy: they wait for the regular batches.
    expect(waiting.takeSmall(6)).toEqual([...items('a', 2), ...items('b', 3)]);
    expect(waiting.size).toBe(54);
    expect(waiting.take(32)).toEqual(items('busy', 32));
  });

  it("in a group commit, writes a busy lane's items in its turns, and a small lane's at once in the spare write", async () => {
    const batches: string[][] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const group = createGroupCommit<string, string>({
      maxInFlight: 1,
      maxBatch: 4,
      waiting: lanes(({ item }) => laneOf(item)),
      expressItems: 2,
      async write(batch) {
        batches.push(batch.map((submitted) => submitted.item));
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await sleep(20);
        inFlight -= 1;
        for (const submitted of batch) submitted.resolve(submitted.item);
      },
    });
    const busy = Array.from({ length: 12 }, (_, i) => group.submit(`busy:${i}`));
    await sleep(5); // busy's first write under way, the rest waiting
    const quiet = group.submit('quiet:0');
    const quietDone = await Promise.race([quiet.then(() => 'quiet'), sleep(35).then(() => 'late')]);
    // Without the spare write, quiet would wait for busy's first write and then its turn.
    expect(quietDone).toBe('quiet');
    await Promise.all(busy);
    expect(batches[0]).toEqual(['busy:0', 'busy:1', 'busy:2', 'busy:3']);
    expect(batches).toContainEqual(['quiet:0']);
    expect(mostInFlight).toBe(2);
  });
});
