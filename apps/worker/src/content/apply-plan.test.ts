import { ROOT_CONTEXT } from '@opentelemetry/api';
import { AppError } from '@ingest/contracts';
import type { Submitted } from '@ingest/db';
import { describe, expect, it } from 'vitest';
import {
  ChangeFailed,
  MAX_EVENTS_PER_TRANSACTION,
  routeRun,
  runRequestsOf,
  settleBatch,
  stepsFailed,
  type RunCaps,
} from './apply-plan.js';
import { eventRow, routed, testDeps } from '../../test/content-events.js';

interface Head {
  row: { id: string };
  attempt: number | null;
}

const head = (id: string, attempt: number | null = 1): Head => ({ row: { id }, attempt });

/** A batch as the group commit hands it over, and how each of its items settled. */
function batchOf(ids: string[]) {
  const batch: Array<Submitted<Head, string | undefined>> = [];
  const answers = ids.map(
    (id) =>
      new Promise<string | undefined>((resolve, reject) => {
        batch.push({ item: head(id), resolve, reject, context: ROOT_CONTEXT });
      }),
  );
  return { batch, settled: Promise.allSettled(answers) };
}

/** An applyTogether that records each try and fails as `fail` says (or applies them all). */
function tries(fail: (ids: string[], caps: RunCaps) => Error | undefined = () => undefined) {
  const made: Array<{ ids: string[]; caps: RunCaps }> = [];
  const applyTogether = async (heads: Head[], caps: RunCaps) => {
    const ids = heads.map(({ row }) => row.id);
    made.push({ ids, caps });
    const error = fail(ids, caps);
    if (error !== undefined) throw error;
    return new Map(ids.map((id) => [id, `applied ${id}`]));
  };
  return { made, applyTogether };
}

const fulfilled = (value: string | undefined) => ({ status: 'fulfilled', value });
const rejected = (reason: unknown) => ({ status: 'rejected', reason });

describe('settleBatch', () => {
  it('applies the heads in one try and answers each with its own outcome', async () => {
    const { batch, settled } = batchOf(['a', 'b']);
    const { made, applyTogether } = tries();
    await settleBatch(batch, applyTogether);
    expect(made.map(({ ids }) => ids)).toEqual([['a', 'b']]);
    expect(await settled).toEqual([fulfilled('applied a'), fulfilled('applied b')]);
  });

  it('answers the second run of one event with undefined: only the first applied it', async () => {
    const { batch, settled } = batchOf(['a', 'a']);
    await settleBatch(batch, tries().applyTogether);
    expect(await settled).toEqual([fulfilled('applied a'), fulfilled(undefined)]);
  });

  it('tries a head that failed alone, rejects it with its own error, and applies the rest together', async () => {
    const slugTaken = new AppError('SLUG_TAKEN', 'The slug "x" is already taken');
    const { batch, settled } = batchOf(['a', 'b', 'c']);
    const { made, applyTogether } = tries((ids) =>
      ids.includes('b') ? new ChangeFailed(new Set(['b']), new Map(), slugTaken) : undefined,
    );
    await settleBatch(batch, applyTogether);
    expect(made.map(({ ids }) => ids)).toEqual([['a', 'b', 'c'], ['b'], ['a', 'c']]);
    expect(await settled).toEqual([
      fulfilled('applied a'),
      rejected(slugTaken),
      fulfilled('applied c'),
    ]);
  });

  it('cuts a run before the follower that failed and tries the same heads again', async () => {
    const { batch, settled } = batchOf(['a', 'b']);
    const { made, applyTogether } = tries((_, caps) =>
      caps.has('a') ? undefined : new ChangeFailed(new Set(), new Map([['a', 2]]), new Error('x')),
    );
    await settleBatch(batch, applyTogether);
    expect(made.map(({ ids, caps }) => [ids, caps.get('a')])).toEqual([
      [['a', 'b'], undefined],
      [['a', 'b'], 2],
    ]);
    expect(await settled).toEqual([fulfilled('applied a'), fulfilled('applied b')]);
  });

  it('keeps the cuts already made when a head fails on a later try', async () => {
    const { batch, settled } = batchOf(['a', 'b']);
    const { made, applyTogether } = tries((ids, caps) => {
      if (!caps.has('a')) return new ChangeFailed(new Set(), new Map([['a', 1]]), new Error('x'));
      if (ids.includes('b')) return new ChangeFailed(new Set(['b']), new Map(), new Error('b'));
      return undefined;
    });
    await settleBatch(batch, applyTogether);
    expect(made.map(({ ids, caps }) => [ids, caps.get('a')])).toEqual([
      [['a', 'b'], undefined],
      [['a', 'b'], 1],
      [['b'], 1],
      [['a'], 1],
    ]);
    expect((await settled).map(({ status }) => status)).toEqual(['fulfilled', 'rejected']);
  });

  it('tries every head alone when a statement they shared failed', async () => {
    const deadlock = new Error('deadlock detected');
    const { batch, settled } = batchOf(['a', 'b', 'c']);
    const { made, applyTogether } = tries((ids) => (ids.length > 1 ? deadlock : undefined));
    await settleBatch(batch, applyTogether);
    expect(made.map(({ ids }) => ids)).toEqual([['a', 'b', 'c'], ['a'], ['b'], ['c']]);
    expect((await settled).map(({ status }) => status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
  });

  it('rejects every head at once, without more tries, while the database is unreachable', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const { batch, settled } = batchOf(['a', 'b']);
    const { made, applyTogether } = tries(
      () => new ChangeFailed(new Set(['a']), new Map(), refused),
    );
    await settleBatch(batch, applyTogether);
    expect(made).toHaveLength(1);
    expect(await settled).toEqual([rejected(refused), rejected(refused)]);
  });
});

describe('stepsFailed', () => {
  const step = (from: number, events = 1) => ({
    headId: 'h1',
    from,
    events: Array.from({ length: events }, () => routed(eventRow('article.delete', { slug: 'a' }))),
  });

  it('cuts the run before a step of followers that failed, and fails no head', () => {
    const failure = stepsFailed([step(2, 2)], 'reason');
    expect([...failure.heads]).toEqual([]);
    expect([...failure.cuts]).toEqual([['h1', 1]]);
    expect(failure.reason).toBe('reason');
  });

  it('names the head of a step that failed, and cuts its run when followers were in it', () => {
    expect(stepsFailed([step(0)], 'reason')).toMatchObject({
      heads: new Set(['h1']),
      cuts: new Map(),
    });
    expect(stepsFailed([step(0, 3)], 'reason')).toMatchObject({
      heads: new Set(['h1']),
      cuts: new Map([['h1', 0]]),
    });
  });

  it('names every head of a call they shared', () => {
    const failure = stepsFailed([step(0), { ...step(0), headId: 'h2' }], 'reason');
    expect([...failure.heads]).toEqual(['h1', 'h2']);
  });
});

describe('runRequestsOf', () => {
  it('shares the room of a transaction among the heads, never more than it holds', () => {
    for (const count of [1, 2, 7, 32]) {
      const heads = Array.from({ length: count }, (_, index) => head(`h${index}`));
      const requests = runRequestsOf(heads, new Map());
      const events = count + requests.reduce((sum, { maxFollowers }) => sum + maxFollowers, 0);
      expect(events).toBeLessThanOrEqual(MAX_EVENTS_PER_TRANSACTION);
      expect(events).toBeGreaterThan(MAX_EVENTS_PER_TRANSACTION - count);
    }
  });

  it('lowers a run that was cut, and never raises one past its share', () => {
    const caps = new Map([
      ['a', 3],
      ['b', 1_000],
    ]);
    expect(runRequestsOf([head('a'), head('b')], caps)).toEqual([
      { headId: 'a', claimed: true, maxFollowers: 3 },
      { headId: 'b', claimed: true, maxFollowers: 127 },
    ]);
  });
});

describe('routeRun', () => {
  it('takes the run up to the first follower that no longer validates', () => {
    const run = [
      eventRow('article.update', { slug: 'busy', title: 'One' }),
      eventRow('article.update', { slug: 'busy', title: 'Two' }),
      eventRow('article.update', { slug: 'busy', title: 'Three' }, { payload: { slug: 'busy' } }),
      eventRow('article.update', { slug: 'busy', title: 'Four' }),
    ];
    const followers = routeRun(testDeps, run);
    expect(followers.map(({ row }) => row.id)).toEqual([run[0]?.id, run[1]?.id]);
    expect(followers.map(({ routed }) => routed.change.data)).toEqual([
      { slug: 'busy', title: 'One' },
      { slug: 'busy', title: 'Two' },
    ]);
  });

  it('ends the run at an event that names no processor', () => {
    const run = [
      eventRow('article.delete', { slug: 'gone' }, { event: 'article.archive' }),
      eventRow('article.delete', { slug: 'gone' }),
    ];
    expect(routeRun(testDeps, run)).toEqual([]);
  });
});
