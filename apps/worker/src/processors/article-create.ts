import { AppError, type EventResult } from '@ingest/contracts';
import { readingMinutes, slugFromTitle } from '@ingest/domain';
import { v7 as uuidv7 } from 'uuid';
import { insertArticles, type ArticleRow } from './article-rows.js';
import type { Change, EventProcessor, Tx } from './catalog.js';
import { categoryIdFor } from './categories.js';
import { insertWithFreeSlug } from './slug-allocation.js';

type Create = Change<'article.create'>;

async function articleRow(tx: Tx, change: Create, slug: string): Promise<ArticleRow> {
  const { accountId, data, limits } = change;
  return {
    id: uuidv7(),
    slug,
    accountId,
    title: data.title,
    excerpt: data.excerpt ?? null,
    body: data.body,
    cover: data.cover ?? null,
    categoryId: data.category === undefined ? null : await categoryIdFor(tx, data.category),
    readMinutes: data.readMinutes ?? readingMinutes(data.body, limits.readMinutesMax),
    readMinutesComputed: data.readMinutes === undefined,
  };
}

/** Without a slug: the first free one of the title's slug, -2, -3, ... */
async function createWithDerivedSlug(tx: Tx, change: Create): Promise<EventResult> {
  const row = await articleRow(tx, change, '');
  const slug = await insertWithFreeSlug(tx, slugFromTitle(change.data.title), async (candidate) =>
    (await insertArticles(tx, [{ ...row, slug: candidate }])).has(row.id),
  );
  return { type: 'article', id: row.id, slug };
}

/**
 * Creates that name their slug, in one INSERT: each gets what changed, or SLUG_TAKEN when
 * its slug is taken; one taken slug does not disturb the others.
 */
async function createWithNamedSlugs(
  tx: Tx,
  changes: Create[],
): Promise<Map<string, EventResult | AppError>> {
  const rows = new Map<string, ArticleRow>();
  for (const change of changes) {
    rows.set(change.eventId, await articleRow(tx, change, change.data.slug ?? ''));
  }
  const inserted = await insertArticles(tx, [...rows.values()]);
  return new Map(
    [...rows].map(([eventId, row]) => [
      eventId,
      inserted.has(row.id)
        ? { type: 'article', id: row.id, slug: row.slug }
        : new AppError('SLUG_TAKEN', `The slug "${row.slug}" is already taken`),
    ]),
  );
}

export const articleCreate: EventProcessor<'article.create'> = {
  async apply(tx, change) {
    if (change.data.slug === undefined) return createWithDerivedSlug(tx, change);
    const outcome = (await createWithNamedSlugs(tx, [change])).get(change.eventId);
    if (outcome === undefined) throw new Error('the create was not answered');
    if (outcome instanceof AppError) throw outcome;
    return outcome;
  },
  // Most creates name their slug: those share one INSERT; the others allocate one by one.
  async applyMany(tx, changes) {
    const named = changes.filter((change) => change.data.slug !== undefined);
    const outcomes = named.length > 0 ? await createWithNamedSlugs(tx, named) : new Map();
    for (const change of changes) {
      if (change.data.slug === undefined) {
        outcomes.set(change.eventId, await createWithDerivedSlug(tx, change));
      }
    }
    return outcomes;
  },
};
