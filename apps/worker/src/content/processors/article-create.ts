import { AppError, failed, succeeded, type EventResult, type Result } from '@ingest/contracts';
import { readingMinutes, slugFromTitle } from '@ingest/domain';
import { v7 as uuidv7 } from 'uuid';
import { articleResult } from './article-result.js';
import { insertArticles, type ArticleRow } from './article-rows.js';
import {
  oneByMany,
  type ApplyScope,
  type Change,
  type EventProcessor,
  type Outcomes,
} from './catalog.js';
import { insertWithFreeSlug } from './slug-allocation.js';

type Create = Change<'article.create'>;

function articleRow({ categories }: ApplyScope, change: Create, slug: string): ArticleRow {
  const { accountId, data, limits } = change;
  return {
    id: uuidv7(),
    slug,
    accountId,
    title: data.title,
    excerpt: data.excerpt ?? null,
    body: data.body,
    cover: data.cover ?? null,
    categoryId: data.category === undefined ? null : categories.idOf(data.category),
    readMinutes: data.readMinutes ?? readingMinutes(data.body, limits.readMinutesMax),
    readMinutesComputed: data.readMinutes === undefined,
    version: 1,
  };
}

const created = (change: Create, article: ArticleRow) =>
  ({
    type: 'article.created',
    eventId: change.eventId,
    article,
    version: article.version,
  }) as const;

/** Without a slug: the first free one of the title's slug, -2, -3, ... */
async function createWithDerivedSlug(scope: ApplyScope, change: Create): Promise<EventResult> {
  const { tx } = scope;
  const row = articleRow(scope, change, '');
  const slug = await insertWithFreeSlug(tx, slugFromTitle(change.data.title), async (candidate) =>
    (await insertArticles(tx, [{ ...row, slug: candidate }])).has(row.id),
  );
  scope.outbox.push(created(change, { ...row, slug }));
  return articleResult({ ...row, slug });
}

/**
 * Creates that name their slug, in one INSERT: each gets what changed, or SLUG_TAKEN when
 * its slug is taken; one taken slug does not disturb the others.
 */
async function createWithNamedSlugs(scope: ApplyScope, changes: Create[]): Promise<Outcomes> {
  const rows = new Map<Create, ArticleRow>();
  for (const change of changes) {
    rows.set(change, articleRow(scope, change, change.data.slug ?? ''));
  }
  const inserted = await insertArticles(scope.tx, [...rows.values()]);
  const outcomes: Outcomes = new Map();
  for (const [change, row] of rows) {
    if (inserted.has(row.id)) {
      scope.outbox.push(created(change, row));
      outcomes.set(change.eventId, succeeded(articleResult(row)));
    } else {
      outcomes.set(
        change.eventId,
        failed(new AppError('SLUG_TAKEN', `The slug "${row.slug}" is already taken`)),
      );
    }
  }
  return outcomes;
}

/** Creates: those that name their slug share one INSERT; the others allocate one by one. */
async function createMany(scope: ApplyScope, changes: Create[]): Promise<Outcomes> {
  const named = changes.filter((change) => change.data.slug !== undefined);
  const outcomes: Outcomes =
    named.length > 0
      ? await createWithNamedSlugs(scope, named)
      : new Map<string, Result<EventResult>>();
  for (const change of changes) {
    if (change.data.slug === undefined) {
      outcomes.set(change.eventId, succeeded(await createWithDerivedSlug(scope, change)));
    }
  }
  return outcomes;
}

export const articleCreate: EventProcessor<'article.create'> = {
  apply: oneByMany(createMany),
  applyMany: createMany,
};
