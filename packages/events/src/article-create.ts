import { AppError, failed, succeeded, type ContentLimits } from '@ingest/contracts';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { articleFields } from './articles/fields.js';
import { articleMessage } from './articles/message.js';
import { readingMinutes } from './articles/reading-time.js';
import { articleResult } from './articles/result.js';
import { insertArticles, type ArticleRow } from './articles/rows.js';
import { insertWithFreeSlug } from './articles/slug-allocation.js';
import { slugFromTitle } from './articles/slugs.js';
import type { ApplyScope, Change, EventType, Outcomes } from './event-type.js';
import { perLimits, SlugSchema } from './fields.js';

const dataSchema = perLimits((limits: ContentLimits) => {
  const fields = articleFields(limits);
  return z
    .strictObject({
      ...fields,
      readMinutes: fields.readMinutes.meta({
        description: 'Computed from the body (about 200 words a minute) when absent',
      }),
      slug: SlugSchema.meta({
        description: 'Derived from the title when absent (`-2`, `-3`, ... appended if taken)',
      }),
    })
    .partial()
    .required({ title: true, body: true });
});

type Create = Change<z.output<ReturnType<typeof dataSchema>>>;

const message = articleMessage('article.created', {
  version: 1,
  description: 'An article was created: the article as stored',
});

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

/** The line a create stands in: its slug, or its title's. */
const lineOf = ({ accountId, data }: Create) =>
  `${accountId}/${data.slug ?? slugFromTitle(data.title)}`;

/**
 * Creates that name their slug share one INSERT: each gets what changed, or SLUG_TAKEN
 * when its slug is taken, without disturbing the others. Creates without one take the
 * first free slug of their title's, `-2`, `-3`, ..., one after another, after the shared
 * INSERT; so does a named create behind one of them in its line, to keep the line's order.
 */
async function apply(scope: ApplyScope, changes: Create[]): Promise<Outcomes> {
  const together = new Map<Create, ArticleRow>();
  const derivedLines = new Set<string>();
  for (const change of changes) {
    if (change.data.slug === undefined) derivedLines.add(lineOf(change));
    else if (!derivedLines.has(lineOf(change))) {
      together.set(change, articleRow(scope, change, change.data.slug));
    }
  }
  const inserted =
    together.size === 0
      ? new Set<string>()
      : await insertArticles(scope.tx, [...together.values()]);
  const outcomes: Outcomes = new Map();
  for (const change of changes) {
    const shared = together.get(change);
    const row =
      shared === undefined
        ? await insertAlone(scope, change)
        : inserted.has(shared.id)
          ? shared
          : undefined;
    if (row === undefined) {
      const taken = new AppError('SLUG_TAKEN', `The slug "${change.data.slug}" is already taken`);
      outcomes.set(change.eventId, failed(taken));
      continue;
    }
    scope.outbox.push(message.entry(change.eventId, row, row.version));
    outcomes.set(change.eventId, succeeded(articleResult(row)));
  }
  return outcomes;
}

/** A create by itself: at its slug (undefined when taken), or the first free one of its title's. */
async function insertAlone(scope: ApplyScope, change: Create): Promise<ArticleRow | undefined> {
  const row = articleRow(scope, change, change.data.slug ?? '');
  if (change.data.slug !== undefined) {
    return (await insertArticles(scope.tx, [row])).has(row.id) ? row : undefined;
  }
  const slug = await insertWithFreeSlug(
    scope.tx,
    slugFromTitle(change.data.title),
    async (candidate) =>
      (await insertArticles(scope.tx, [{ ...row, slug: candidate }])).has(row.id),
  );
  return { ...row, slug };
}

export const articleCreate = {
  name: 'article.create',
  scope: 'article:create',
  version: 1,
  description: 'Create an article; its slug is derived from the title unless given',
  dataSchema,
  orderKeys: (data) => [data.slug ?? slugFromTitle(data.title)],
  message,
  apply,
} satisfies EventType<'article.create', Create['data'], 'article:create'>;
