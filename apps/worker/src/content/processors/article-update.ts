import { AppError, failed, succeeded, type EventResult, type Result } from '@ingest/contracts';
import { uniqueViolationOf, violatesUniqueColumn } from '@ingest/db';
import { readingMinutes } from '@ingest/domain';
import { articleResult } from './article-result.js';
import { ownEntryOf, readOwnArticles, updateArticles } from './article-rows.js';
import {
  oneByMany,
  type ApplyScope,
  type Change,
  type EventProcessor,
  type Outcomes,
} from './catalog.js';
import type { ArticleState } from './content-changes.js';
import { versionConflict } from './version-check.js';

type Update = Change<'article.update'>;

/** An article's state after an update, and whether the update sent a body. */
type UpdatedRow = ArticleState & { bodyChanged: boolean };

const notFound = (slug: string) =>
  failed(new AppError('ARTICLE_NOT_FOUND', `You have no article "${slug}"`));

/**
 * The article after the update: only the fields sent change, the version goes up by one,
 * and `updatedAt` is left to the write (the transaction's time).
 */
function updatedRow(
  { categories }: ApplyScope,
  article: ArticleState,
  { data, limits }: Update,
): UpdatedRow {
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
    version: article.version + 1,
    updatedAt: undefined,
  };
}

/** Reports the change into the outbox, as the article stands after it. */
function report(scope: ApplyScope, change: Update, { bodyChanged: _, ...article }: UpdatedRow) {
  scope.outbox.push({
    type: 'article.updated',
    eventId: change.eventId,
    article,
    version: article.version,
  });
}

/**
 * A rename, alone: its new slug may be taken, which PostgreSQL reports by failing the
 * statement (the unique index), and that must be this event's SLUG_TAKEN, not a batch's.
 * The statement runs under a savepoint, so the failure changes nothing else and leaves
 * the transaction to the others' changes.
 */
async function rename(
  scope: ApplyScope,
  article: ArticleState,
  change: Update,
): Promise<Result<EventResult>> {
  const row = { ...updatedRow(scope, article, change), updatedAt: new Date() };
  await scope.tx.$executeRaw`SAVEPOINT rename`;
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
        version: row.version,
        updatedAt: row.updatedAt,
      },
    });
  } catch (error) {
    const violation = uniqueViolationOf(error);
    if (violation === undefined || !violatesUniqueColumn(violation, 'articles', 'slug')) {
      throw error;
    }
    await scope.tx.$executeRaw`ROLLBACK TO SAVEPOINT rename`;
    return failed(new AppError('SLUG_TAKEN', `The slug "${row.slug}" is already taken`));
  }
  await scope.tx.$executeRaw`RELEASE SAVEPOINT rename`;
  report(scope, change, row);
  return succeeded(articleResult(row));
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
  const writes: UpdatedRow[] = [];
  const renames: Array<[ArticleState, Update]> = [];
  for (const change of changes) {
    const article = ownEntryOf(found, { accountId: change.accountId, slug: change.data.slug });
    if (article === undefined) {
      outcomes.set(change.eventId, notFound(change.data.slug));
      continue;
    }
    const conflict = versionConflict(article.slug, change.data.ifVersion, article.version);
    if (conflict !== undefined) outcomes.set(change.eventId, failed(conflict));
    else if (change.data.newSlug !== undefined && change.data.newSlug !== article.slug) {
      renames.push([article, change]);
    } else {
      const row = updatedRow(scope, article, change);
      writes.push(row);
      report(scope, change, row);
      outcomes.set(change.eventId, succeeded(articleResult(row)));
    }
  }
  await updateArticles(scope.tx, writes);
  for (const [article, change] of renames) {
    outcomes.set(change.eventId, await rename(scope, article, change));
  }
  return outcomes;
}

/**
 * Consecutive updates of one article (a busy slug's run): read once, each applied in
 * order to the state the one before left, written once. Renames never come here: a
 * rename stands in two lines, so it is never part of a run. Each `ifVersion` is checked
 * against the version the updates before it left, as if each were applied alone; one
 * that fails changes nothing, and the next is checked against the same state.
 */
async function updateRun(scope: ApplyScope, changes: Update[]): Promise<Outcomes> {
  const [first] = changes;
  if (first === undefined) return new Map();
  const wanted = { accountId: first.accountId, slug: first.data.slug };
  const article = ownEntryOf(await readOwnArticles(scope.tx, [wanted]), wanted);
  // A run holds updates only, so what the first does not find, none of them would.
  if (article === undefined) {
    return new Map(changes.map(({ eventId }) => [eventId, notFound(first.data.slug)]));
  }
  const outcomes: Outcomes = new Map();
  let state: UpdatedRow = { ...article, bodyChanged: false };
  for (const change of changes) {
    const conflict = versionConflict(state.slug, change.data.ifVersion, state.version);
    if (conflict !== undefined) {
      outcomes.set(change.eventId, failed(conflict));
      continue;
    }
    const next = updatedRow(scope, state, change);
    report(scope, change, next);
    state = { ...next, bodyChanged: state.bodyChanged || next.bodyChanged };
    outcomes.set(change.eventId, succeeded(articleResult(state)));
  }
  // When every update failed its check there is nothing to write (not even updated_at).
  if (state.version !== article.version) await updateArticles(scope.tx, [state]);
  return outcomes;
}

export const articleUpdate: EventProcessor<'article.update'> = {
  apply: oneByMany(updateMany),
  applyMany: updateMany,
  applyRun: updateRun,
};
