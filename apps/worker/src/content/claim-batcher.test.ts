import type { Claim } from '@ingest/event-log';
import { describe, expect, it } from 'vitest';
import { answersOf } from './claim-batcher.js';
import { eventRow } from '../../test/content-events.js';

describe('answersOf (the claim batcher’s answers)', () => {
  const row = eventRow('article.delete', { slug: 'a' });
  const claimed: Claim = { outcome: 'claimed', attempt: 1, row };

  it('answers each job with its event’s claim, and an event not found as missing', () => {
    const answer = answersOf(
      new Map<string, Claim>([
        [row.id, claimed],
        ['blocked', { outcome: 'blocked' }],
      ]),
    );
    expect(answer(row.id)).toBe(claimed);
    expect(answer('blocked')).toEqual({ outcome: 'blocked' });
    expect(answer('unknown')).toEqual({ outcome: 'missing' });
  });

  it('gives the attempt to the first job of an event handed in twice; the second finds it finished', () => {
    const answer = answersOf(new Map([[row.id, claimed]]));
    expect([answer(row.id), answer(row.id)]).toEqual([claimed, { outcome: 'finished' }]);
  });

  it('answers a blocked event blocked each time it is asked', () => {
    const answer = answersOf(new Map<string, Claim>([['e', { outcome: 'blocked' }]]));
    expect([answer('e'), answer('e')]).toEqual([{ outcome: 'blocked' }, { outcome: 'blocked' }]);
  });
});
