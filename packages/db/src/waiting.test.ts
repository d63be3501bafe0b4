import { describe, expect, it } from 'vitest';
import { fifo } from './waiting.js';

describe('fifo', () => {
  it('takes items in the order they came', () => {
    const waiting = fifo<string>();
    for (const item of ['a:0', 'b:0', 'a:1']) waiting.push(item);
    expect(waiting.take(2)).toEqual(['a:0', 'b:0']);
    expect(waiting.take(2)).toEqual(['a:1']);
    expect(waiting.size).toBe(0);
  });

  it('takes nothing for a spare batch', () => {
    expect(fifo<string>().takeSmall(6)).toEqual([]);
  });
});
