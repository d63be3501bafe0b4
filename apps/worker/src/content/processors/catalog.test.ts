import {
  AppError,
  EVENT_NAMES,
  failed,
  succeeded,
  type EventResult,
  type Result,
} from '@ingest/contracts';
import { describe, expect, it } from 'vitest';
import { eventRow, routed, testDeps } from '../../../test/content-events.js';
import { changeOf, type Outcomes } from './catalog.js';
import {
  categoriesNamedBy,
  ChangeFailed,
  groupRound,
  keepOutcomes,
  PROCESSORS,
  routeEvent,
} from './index.js';

const article = (id: string): EventResult => ({ type: 'article', id, slug: `slug-${id}` });
const notFound = new AppError('ARTICLE_NOT_FOUND', 'You have no article "x"');

describe('the processor catalog', () => {
  it('has a processor for every event name, and folds runs of updates only', () => {
    expect(Object.keys(PROCESSORS).sort()).toEqual([...EVENT_NAMES].sort());
    const withRuns = EVENT_NAMES.filter((name) => PROCESSORS[name].applyRun !== undefined);
    expect(withRuns).toEqual(['article.update']);
  });
});

describe('routeEvent', () => {
  const route = (row: ReturnType<typeof eventRow>) =>
    routeEvent(testDeps.schemas, row, testDeps.config.content, testDeps.logger);

  it('routes by the recorded name, with the payload parsed by that name’s schema', () => {
    const row = eventRow('article.update', { slug: 'a', newSlug: 'b' });
    const { event, change } = route(row);
    expect(event).toBe('article.update');
    expect(change).toMatchObject({
      eventId: row.id,
      accountId: row.accountId,
      data: { slug: 'a', newSlug: 'b' },
    });
  });

  it('fails an event whose name has no processor, for good (AppError)', () => {
    for (const event of ['article.archive', null]) {
      const row = eventRow('article.delete', { slug: 'a' }, { event });
      expect(() => route(row)).toThrow(expect.objectContaining({ code: 'UNKNOWN_EVENT' }));
    }
  });

  it('fails an event whose payload does not fit its name’s schema, for good', () => {
    // A delete's payload recorded under the name of a create.
    const row = eventRow('article.delete', { slug: 'a' }, { event: 'article.create' });
    expect(() => route(row)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});

describe('changeOf', () => {
  const outcomes: Outcomes = new Map<string, Result<EventResult>>([
    ['a', succeeded(article('a'))],
    ['b', failed(notFound)],
  ]);

  it('answers what changed, throws the event’s own AppError, or says it was not answered', () => {
    expect(changeOf(outcomes, 'a')).toEqual(article('a'));
    expect(() => changeOf(outcomes, 'b')).toThrow(notFound);
    expect(() => changeOf(outcomes, 'c')).toThrow('event c was not answered');
  });
});

describe('keepOutcomes', () => {
  it('keeps each event’s outcome, in the order of the changes', () => {
    const results: Outcomes = new Map();
    const outcomes: Outcomes = new Map<string, Result<EventResult>>([
      ['b', succeeded(article('b'))],
      ['a', succeeded(article('a'))],
    ]);
    keepOutcomes([{ eventId: 'a' }, { eventId: 'b' }], outcomes, results);
    expect([...results]).toEqual([
      ['a', succeeded(article('a'))],
      ['b', succeeded(article('b'))],
    ]);
  });

  it('keeps an answered failure beside the others: it changed nothing, so nothing rolls back', () => {
    const results: Outcomes = new Map();
    const outcomes: Outcomes = new Map<string, Result<EventResult>>([
      ['a', succeeded(article('a'))],
      ['b', failed(notFound)],
      ['c', succeeded(article('c'))],
    ]);
    keepOutcomes([{ eventId: 'a' }, { eventId: 'b' }, { eventId: 'c' }], outcomes, results);
    expect([...results.keys()]).toEqual(['a', 'b', 'c']);
    expect(results.get('b')).toEqual(failed(notFound));
  });

  it('fails the transaction at the first event its processor did not answer, naming it alone', () => {
    const results: Outcomes = new Map();
    const outcomes: Outcomes = new Map([['a', succeeded(article('a'))]]);
    let thrown: unknown;
    try {
      keepOutcomes([{ eventId: 'a' }, { eventId: 'b' }, { eventId: 'c' }], outcomes, results);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ChangeFailed);
    expect(thrown).toMatchObject({ eventIds: ['b'] });
  });
});

describe('groupRound', () => {
  it('groups single events by kind and keeps longer steps whole, as runs', () => {
    const create = routed(eventRow('article.create', { title: 'New', body: ['x'] }));
    const deleteA = routed(eventRow('article.delete', { slug: 'a' }));
    const deleteB = routed(eventRow('article.delete', { slug: 'b' }));
    const run = [
      routed(eventRow('article.update', { slug: 'c', title: 'One' })),
      routed(eventRow('article.update', { slug: 'c', title: 'Two' })),
    ];
    const { singles, runs } = groupRound([[deleteA], run, [create], [], [deleteB]]);
    expect(singles['article.delete'].map(({ eventId }) => eventId)).toEqual([
      deleteA.change.eventId,
      deleteB.change.eventId,
    ]);
    expect(singles['article.create'].map(({ eventId }) => eventId)).toEqual([
      create.change.eventId,
    ]);
    expect(singles['article.update']).toEqual([]);
    expect(runs).toEqual([run]);
  });
});

describe('categoriesNamedBy', () => {
  it('names the category a create or an update files under, and none for a clearing one', () => {
    const named = [
      eventRow('article.create', { title: 'T', body: ['x'], category: 'News' }),
      eventRow('article.update', { slug: 'a', category: 'Sport' }),
      eventRow('article.update', { slug: 'a', category: null }),
      eventRow('article.delete', { slug: 'a' }),
    ].flatMap((row) => categoriesNamedBy(routed(row)));
    expect(named).toEqual(['News', 'Sport']);
  });
});
