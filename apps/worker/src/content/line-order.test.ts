// The ordering rules on the worker's side: a line is one account's events about one slug
// (their order keys, see orderKeysOf), and what the worker decides from it without the
// database: which events of a line are applied in one step, in which round of a shared
// transaction, and which lines a commit wakes.
import type { EventRow } from '@ingest/event-log';
import { describe, expect, it } from 'vitest';
import { roundsOf, stepsOf, toWake, type Step } from './apply-plan.js';
import { ACCOUNT_ID, eventRow, routed } from '../../test/content-events.js';

const ids = (steps: Step[]) =>
  steps.map(({ events }) => events.map(({ change }) => change.eventId));

describe('steps of a line', () => {
  it('folds consecutive events of one type into one step, and keeps the line’s order', () => {
    const line = [
      routed(eventRow('article.create', { title: 'A', body: ['x'], slug: 'a' })),
      routed(eventRow('article.update', { slug: 'a', title: 'One' })),
      routed(eventRow('article.update', { slug: 'a', title: 'Two' })),
      routed(eventRow('article.delete', { slug: 'a' })),
      routed(eventRow('article.delete', { slug: 'a' })),
      routed(eventRow('article.update', { slug: 'a', title: 'Three' })),
    ];
    const [create, one, two, remove, removeAgain, three] = line.map(({ change }) => change.eventId);
    const steps = stepsOf('head', line);
    expect(ids(steps)).toEqual([[create], [one, two], [remove, removeAgain], [three]]);
    expect(steps.map(({ from }) => from)).toEqual([0, 1, 3, 5]);
  });
});

describe('rounds of a shared transaction', () => {
  it('puts the n-th step of every line in round n: no round holds two steps of one line', () => {
    const lines = [['a1', 'a2', 'a3'], ['b1'], ['c1', 'c2']];
    const rounds = roundsOf(lines);
    expect(rounds).toEqual([['a1', 'b1', 'c1'], ['a2', 'c2'], ['a3']]);
    for (const line of lines) {
      // Read round by round, each line comes out in its own order.
      expect(rounds.flat().filter((step) => line.includes(step))).toEqual(line);
    }
  });

  it('has no rounds without lines', () => {
    expect(roundsOf([])).toEqual([]);
  });
});

describe('what a commit wakes', () => {
  const appliedAlone = (...rows: EventRow[]) =>
    new Map(rows.map((row) => [row.id, { followers: [] }]));
  const line = (key: string) => ({ accountId: ACCOUNT_ID, key });

  it('wakes both lines of an applied rename: its old slug and its new one', () => {
    const rename = eventRow('article.update', { slug: 'old', newSlug: 'new' });
    expect(toWake([{ row: rename }], appliedAlone(rename)).lines).toEqual([
      line('old'),
      line('new'),
    ]);
  });

  it('wakes the line of the slug a create without one derives from its title', () => {
    const create = eventRow('article.create', { title: 'Hello World', body: ['x'] });
    expect(toWake([{ row: create }], appliedAlone(create)).lines).toEqual([line('hello-world')]);
  });

  it('wakes nothing for a head another run had finished, nor for an event in no line', () => {
    const finishedElsewhere = eventRow('article.delete', { slug: 'a' });
    const lineless = eventRow('highlight.create', { title: 'H', videoUrl: 'https://v.example/1' });
    const wake = toWake([{ row: finishedElsewhere }, { row: lineless }], appliedAlone(lineless));
    expect(wake.lines).toEqual([]);
  });

  it('wakes a line once when two runs of one event were in the batch', () => {
    const remove = eventRow('article.delete', { slug: 'a' });
    expect(toWake([{ row: remove }, { row: remove }], appliedAlone(remove)).lines).toEqual([
      line('a'),
    ]);
  });

  it('wakes the parked jobs of the followers a run applied', () => {
    const head = eventRow('article.update', { slug: 'busy', title: 'One' });
    const followers = [
      eventRow('article.update', { slug: 'busy', title: 'Two' }),
      eventRow('article.update', { slug: 'busy', title: 'Three' }),
    ];
    const applied = new Map([[head.id, { followers: followers.map((row) => ({ row })) }]]);
    expect(toWake([{ row: head }], applied)).toEqual({
      lines: [line('busy')],
      appliedInRuns: followers.map((row) => ({
        eventId: row.id,
        event: 'article.update',
        requestId: row.requestId,
        accountId: row.accountId,
      })),
    });
  });
});
