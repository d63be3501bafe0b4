import { AppError, failed, succeeded, type EventResult } from '@ingest/contracts';
import { uniqueViolationOf, violatesUniqueColumn } from '@ingest/db';
import { readingMinutes } from '@ingest/domain';
import { ownEntryOf, readOwnArticles, updateArticles, type ArticleRow } from './article-rows.js';
import {
  oneByMany,
  type ApplyScope,
  type Change,
  type EventProcessor,
  type Outcomes,
} from './catalog.js';

type Update = Change<'article.update'>;

const notFound = (slug: string) =>
  failed(new AppError('ARTICLE_NOT_FOUND', `You have no article "${slug}"`));

/** The article after the update: only the fields sent change. */
function updatedRow({ categories }: ApplyScope, article: ArticleRow, { data, limits }: Update) {
  const body = data.body ?? article.body;
  // readMinutes: a number fixes it, null goes back to computing it, and a computed one
  // follows the body.
  const computed =
    data.readMinutes === undefined ? article.readMinutesComputed : data.readMinutes === null;
  return {
    ...article,
    slug: data.newSlug ?? article.slug,
    title: data.title ?? article.title,
    excerpt: data.excerpt === undefined ? article.excerpt : data.excerpt,
    body,
    bodyChanged: data.body !== undefined,
    cover: data.cover === undefined ? article.cover : data.cover,
    categoryId:
      data.category === undefined
        ? article.categoryId
        : data.category === null
          ? null
          : categories.idOf(data.category),
    readMinutes: computed
      ? readingMinutes(body, limits.readMinutesMax)
      : (data.readMinutes ?? article.readMinutes),
    readMinutesComputed: computed,
  };
}

/**
 * A rename, alone: its new slug may be taken, which PostgreSQL reports by failing the
 * statement (the unique index), and that must be this event's SLUG_TAKEN, not a batch's.
 */
async function rename(
  scope: ApplyScope,
  article: ArticleRow,
  change: Update,
): Promise<EventResult> {
  const row = updatedRow(scope, article, change);
  try {
    await scope.tx.article.update({
      where: { id: row.id },
      data: {
        slug: row.slug,
        title: row.title,
        excerpt: row.excerpt,
        ...(row.bodyChanged ? { body: row.body } : {}),
        cover: row.cover,
        categoryId: row.categoryId,
        readMinutes: row.readMinutes,
        readMinutesComputed: row.readMinutesComputed,
        updatedAt: new Date(),
      },
    });
  } catch (error) {
    const violation = uniqueViolationOf(error);
    if (violation !== undefined && violatesUniqueColumn(violation, 'articles', 'slug')) {
      throw new AppError('SLUG_TAKEN', `The slug "${row.slug}" is already taken`, {
        cause: error,
      });
    }
    throw error;
  }
  return { type: 'article', id: row.id, slug: row.slug };
}

/**
 * Updates of different articles: one read for all, one write for all but renames, which
 * go one by one (see rename).
 */
async function updateMany(scope: ApplyScope, changes: Update[]): Promise<Outcomes> {
  const found = await readOwnArticles(
    scope.tx,
    changes.map(({ accountId, data }) => ({ accountId, slug: data.slug })),
  );
  const outcomes: Outcomes = new Map();
  const writes: Array<ReturnType<typeof updatedRow>> = [];
  const renames: Array<[ArticleRow, Update]> = [];
  for (const change of changes) {
    const article = ownEntryOf(found, { accountId: change.accountId, slug: change.data.slug });
    if (article === undefined) outcomes.set(change.eventId, notFound(change.data.slug));
    else if (change.data.newSlug !== undefined && change.data.newSlug !== article.slug) {
      renames.push([article, change]);
    } else {
      const row = updatedRow(scope, article, change);
      writes.push(row);
      outcomes.set(change.eventId, succeeded({ type: 'article', id: row.id, slug: row.slug }));
    }
  }
  await updateArticles(scope.tx, writes);
  for (const [article, change] of renames) {
    try {
      outcomes.set(change.eventId, succeeded(await rename(scope, article, change)));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      outcomes.set(change.eventId, failed(error));
      break; // the transaction is unusable now; the caller rolls it back
    }
  }
  return outcomes;
}

/**
 * Consecutive updates of one article (a busy slug's run): read once, each applied in
 * order to the state the one before left, written once. Renames never come here: a
 * rename stands in two lines, so it is never part of a run.
 */
async function updateRun(scope: ApplyScope, changes: Update[]): Promise<Outcomes> {
  const [first] = changes;
  if (first === undefined) return new Map();
  const wanted = { accountId: first.accountId, slug: first.data.slug };
  const article = ownEntryOf(await readOwnArticles(scope.tx, [wanted]), wanted);
  if (article === undefined) return new Map([[first.eventId, notFound(first.data.slug)]]);
  const outcomes: Outcomes = new Map();
  let state = { ...article, bodyChanged: false };
  for (const change of changes) {
    const next = updatedRow(scope, state, change);
    state = { ...next, bodyChanged: state.bodyChanged || next.bodyChanged };
    outcomes.set(change.eventId, succeeded({ type: 'article', id: state.id, slug: state.slug }));
  }
  await updateArticles(scope.tx, [state]);
  return outcomes;
}

export const articleUpdate: EventProcessor<'article.update'> = {
  apply: oneByMany(updateMany),
  applyMany: updateMany,
  applyRun: updateRun,
};
