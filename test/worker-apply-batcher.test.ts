// The worker's shared transaction, driven directly. Two runs of one event (a stalled job
// taken again while its first run is still going) claimed in separate statements and
// handed to the apply batcher in the same moment, so that they meet in one batch: the
// event is applied once, by the first, and the second is told it changed nothing. Events
// that fail for reasons of their own, in a batch with others that succeed: every outcome
// is recorded in the one commit, none of them rolled back. A first delivery's event, read
// and not claimed, applied with its attempt recorded in the same commit, and kept out when
// a redelivery claimed it meanwhile.
import { claimEvents, readEvents, recordDuplicate, type Claim } from '@ingest/event-log';
import { routeEvent } from '@ingest/worker/content/route-event';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, registerAccount } from './support/accounts.js';
import { claimed, startApplyBatcher } from './support/apply-batcher.js';
import { accept, articleData, uniqueSlug } from './support/content.js';
import { startTestApi, type TestApi } from './support/test-api.js';

let api: TestApi;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await createKey(api, await registerAccount(api)));
});
afterAll(async () => {
  await api?.close();
});

const ready = (read: Claim | undefined) => {
  if (read?.outcome !== 'ready') throw new Error(`not ready: ${read?.outcome}`);
  return read;
};

const attemptsOf = async (eventId: string) =>
  (
    await api.deps.db.prisma.eventAttempt.findMany({
      where: { eventId },
      orderBy: { number: 'asc' },
    })
  ).map(({ number, outcome }) => ({ number, outcome }));

describe('the apply batcher', () => {
  it('applies an event only read with its attempt, whole, in the one commit', async () => {
    const { deps, batcher } = startApplyBatcher(api);
    const slug = uniqueSlug('read');
    const eventId = await accept(api, key, 'article.create', articleData({ slug }));
    const { row } = ready((await readEvents(api.deps.db.pool, [eventId])).get(eventId));
    const status = await api.deps.db.pool.query('SELECT status FROM webhook_logs WHERE id = $1', [
      eventId,
    ]);
    expect(status.rows[0]).toEqual({ status: 'queued' }); // a read changes nothing

    const applied = await batcher.apply({
      row,
      attempt: null,
      routed: routeEvent(row, deps.config.content),
      trace: ROOT_CONTEXT,
    });
    expect(applied?.outcome).toMatchObject({ ok: true, value: { type: 'article', slug } });
    expect(await attemptsOf(eventId)).toEqual([{ number: 1, outcome: 'succeeded' }]);
    const after = await api.deps.db.pool.query(
      'SELECT status, attempts FROM webhook_logs WHERE id = $1',
      [eventId],
    );
    expect(after.rows[0]).toEqual({ status: 'succeeded', attempts: 1 });
    // Finished: a later read or claim of it finds nothing to do.
    expect((await readEvents(api.deps.db.pool, [eventId])).get(eventId)).toEqual({
      outcome: 'finished',
    });
  });

  it('keeps the run that claimed an event over one that only read it, in one batch', async () => {
    const { deps, batcher } = startApplyBatcher(api);
    const slug = uniqueSlug('read-then-claimed');
    const eventId = await accept(api, key, 'article.create', articleData({ slug }));
    const read = ready((await readEvents(api.deps.db.pool, [eventId])).get(eventId));
    // A redelivery (the first run stalled) claims it before the first run's apply.
    const claim = claimed((await claimEvents(api.deps.db.pool, [eventId])).get(eventId));
    expect((await readEvents(api.deps.db.pool, [eventId])).get(eventId)).toEqual({
      outcome: 'started',
    });
    const head = (row: typeof read.row, attempt: number | null) => ({
      row,
      attempt,
      routed: routeEvent(row, deps.config.content),
      trace: ROOT_CONTEXT,
    });

    const [byReader, byClaimer] = await Promise.all([
      batcher.apply(head(read.row, null)),
      batcher.apply(head(claim.row, claim.attempt)),
    ]);
    expect(byReader).toBeUndefined();
    expect(byClaimer?.outcome).toMatchObject({ ok: true, value: { type: 'article', slug } });
    expect(await attemptsOf(eventId)).toEqual([{ number: 1, outcome: 'succeeded' }]);
    expect(await api.deps.db.prisma.article.count({ where: { slug } })).toBe(1);
  });

  it('applies an event once when two of its runs meet in one batch, and keeps the first', async () => {
    const { deps, batcher } = startApplyBatcher(api);
    const { config } = deps;
    const slug = uniqueSlug('twice');
    const eventId = await accept(api, key, 'article.create', articleData({ slug }));

    const runs = [];
    for (let run = 0; run < 2; run += 1) {
      const { row, attempt } = claimed(
        (await claimEvents(api.deps.db.pool, [eventId])).get(eventId),
      );
      runs.push({
        row,
        attempt,
        routed: routeEvent(row, config.content),
        trace: ROOT_CONTEXT,
      });
    }
    expect(runs.map((run) => run.attempt)).toEqual([1, 2]);

    const [first, second] = await Promise.all(runs.map((run) => batcher.apply(run)));
    expect(first?.outcome).toMatchObject({ ok: true, value: { type: 'article', slug } });
    expect(second).toBeUndefined();
    await recordDuplicate(api.deps.db.pool, eventId, 2); // what the second run's job does

    const attempts = await api.deps.db.prisma.eventAttempt.findMany({
      where: { eventId },
      orderBy: { number: 'asc' },
    });
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['succeeded', 'duplicate']);
    expect(await api.deps.db.prisma.article.count({ where: { slug } })).toBe(1);
  });

  it('records failures of their own in the commit of the others, without a rollback', async () => {
    // Claimed together, before any is applied, so that they go in one batch.
    const { applyAsHeads: applyTogether } = startApplyBatcher(api);
    const [mine, other] = [uniqueSlug('mine'), uniqueSlug('other')];
    await applyTogether([
      await accept(api, key, 'article.create', articleData({ slug: mine })),
      await accept(api, key, 'article.create', articleData({ slug: other })),
    ]);
    const events = {
      created: ['article.create', articleData({ slug: uniqueSlug('new') })],
      updated: ['article.update', { slug: mine, title: 'Changed' }],
      notFound: ['article.update', { slug: uniqueSlug('missing'), title: 'X' }],
      slugTaken: ['article.create', articleData({ slug: other })],
      deleteMissing: ['article.delete', { slug: uniqueSlug('missing') }],
    } as const;
    const ids: string[] = [];
    for (const [event, data] of Object.values(events))
      ids.push(await accept(api, key, event, data));
    const applied = await applyTogether(ids);
    const outcomes = Object.keys(events).map((name, index) => {
      const outcome = applied[index]?.outcome;
      return [name, outcome?.ok ? 'ok' : outcome?.error.code];
    });
    expect(Object.fromEntries(outcomes)).toEqual({
      created: 'ok',
      updated: 'ok',
      notFound: 'ARTICLE_NOT_FOUND',
      slugTaken: 'SLUG_TAKEN',
      deleteMissing: 'ARTICLE_NOT_FOUND',
    });
    const rows = await api.deps.db.prisma.webhookLog.findMany({
      where: { id: { in: ids } },
      select: { status: true, attempts: true, finishedAt: true, error: true },
    });
    expect(rows.map((row) => row.status).sort()).toEqual([
      'failed',
      'failed',
      'failed',
      'succeeded',
      'succeeded',
    ]);
    expect(rows.every((row) => row.attempts === 1)).toBe(true);
    // now() is the time the transaction started: one commit recorded them all.
    expect(new Set(rows.map((row) => row.finishedAt?.getTime())).size).toBe(1);

    // A rename onto a taken slug fails alone, under its savepoint, beside a change that
    // succeeds; the renamed article stays as it was.
    const [renamed, beside] = await applyTogether([
      await accept(api, key, 'article.update', { slug: mine, newSlug: other }),
      await accept(api, key, 'article.create', articleData({ slug: uniqueSlug('beside') })),
    ]);
    expect(renamed?.outcome).toMatchObject({ ok: false, error: { code: 'SLUG_TAKEN' } });
    expect(beside?.outcome.ok).toBe(true);
    const article = await api.deps.db.prisma.article.findUnique({ where: { slug: mine } });
    expect(article?.title).toBe('Changed');
  });
});
