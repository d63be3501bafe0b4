import { AppError, failed, succeeded, type ContentLimits } from '@ingest/contracts';
import { uniqueViolationOf, violatesUniqueColumn } from '@ingest/db';
import { type z } from 'zod';
import { articleFields } from './articles/fields.js';
import { articleMessage, type ArticleState } from './articles/message.js';
import { readingMinutes } from './articles/reading-time.js';
import { articleResult } from './articles/result.js';
import { ownEntryOf, readOwnArticles, updateArticles, type OwnSlug } from './articles/rows.js';
import type { ApplyScope, Change, EventType, Outcome, Outcomes } from './event-type.js';
import { changeOf, ifVersionField, perLimits, SlugSchema } from './fields.js';
import { versionConflict } from './version-check.js';

const dataSchema = perLimits((limits: ContentLimits) => {
  const fields = articleFields(limits);
  return changeOf(
    { slug: SlugSchema, ifVersion: ifVersionField('article') },
    {
      title: fields.title.optional(),
      body: fields.body.optional(),
      excerpt: fields.excerpt.nullable().optional(),
      cover: fields.cover.nullable().optional(),
      category: fields.category.nullable().optional(),
      readMinutes: fields.readMinutes.nullable().optional(),
      newSlug: SlugSchema.optional(),
    },
  );
});

type Update = Change<z.output<ReturnType<typeof dataSchema>>>;

const message = articleMessage('article.updated', {
  version: 1,
  description: 'An article was changed: the article right after this change',
});

/** An article's state after an update, and whether an update sent a body. */
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
  scope.outbox.push(message.entry(change.eventId, article, article.version));
}

/**
 * A rename, alone: its new slug may be taken, which PostgreSQL reports by failing the
 * statement (the unique index), and that must be this event's SLUG_TAKEN, not a batch's.
 * The statement runs under a savepoint, so the failure changes nothing else and leaves
 * the transaction to the others' changes.
 */
async function rename(scope: ApplyScope, next: UpdatedRow, change: Update): Promise<Outcome> {
  const row = { ...next, updatedAt: new Date() };
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

const keyOf = (change: Update): OwnSlug => ({
  accountId: change.accountId,
  slug: change.data.slug,
});

/**
 * Reads every article the updates address in one statement, applies each update in order
 * to the state the ones before it left (a busy slug's run is read once and written once),
 * and writes every changed article in one statement. A rename goes on its own (see
 * rename). An update that fails its check changes nothing, and the next is checked
 * against the same state.
 */
async function apply(scope: ApplyScope, changes: Update[]): Promise<Outcomes> {
  const found = await readOwnArticles(scope.tx, changes.map(keyOf));
  // What the updates so far left, by key; null: renamed away. Written at the end.
  const states = new Map<string, UpdatedRow | null>();
  const written = new Set<string>();
  const outcomes: Outcomes = new Map();
  for (const change of changes) {
    const key = `${change.accountId}/${change.data.slug}`;
    const stored = ownEntryOf(found, keyOf(change));
    const state = states.has(key) ? states.get(key) : stored && { ...stored, bodyChanged: false };
    if (state === undefined || state === null) {
      outcomes.set(change.eventId, notFound(change.data.slug));
      continue;
    }
    const conflict = versionConflict(
      `article "${state.slug}"`,
      change.data.ifVersion,
      state.version,
    );
    if (conflict !== undefined) {
      outcomes.set(change.eventId, failed(conflict));
      continue;
    }
    const next = updatedRow(scope, state, change);
    next.bodyChanged ||= state.bodyChanged;
    if (next.slug === state.slug) {
      report(scope, change, next);
      states.set(key, next);
      written.add(key);
      outcomes.set(change.eventId, succeeded(articleResult(next)));
      continue;
    }
    const outcome = await rename(scope, next, change);
    outcomes.set(change.eventId, outcome);
    if (outcome.ok) {
      states.set(key, null);
      states.set(`${change.accountId}/${next.slug}`, { ...next, bodyChanged: false });
    }
  }
  await updateArticles(
    scope.tx,
    [...written].flatMap((key) => states.get(key) ?? []),
  );
  return outcomes;
}

export const articleUpdate = {
  name: 'article.update',
  scope: 'article:update',
  version: 1,
  description: 'Change fields of one of your articles, found by slug; null clears a field',
  dataSchema,
  example: {
    slug: 'how-we-ship-on-fridays',
    ifVersion: 1,
    title: 'How we ship on Fridays, safely',
  },
  orderKeys: (data) =>
    data.newSlug === undefined || data.newSlug === data.slug
      ? [data.slug]
      : [data.slug, data.newSlug],
  message,
  apply,
} satisfies EventType<'article.update', Update['data'], 'article:update'>;
