import { AppError, failed, succeeded, type ContentLimits } from '@ingest/contracts';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { articleFields } from './articles/fields.js';
import { articleMessage } from './articles/message.js';
import { readingMinutes } from './articles/reading-time.js';
import { articleResult } from './articles/result.js';
import { insertArticles, type ArticleRow } from './articles/rows.js';
import { insertWithSuffixes } from './articles/slug-allocation.js';
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

/**
 * Every create goes into one INSERT, in the order given: at its slug, or at its title's
 * when it names none, the first of a title per call. A named create whose slug is taken
 * fails with SLUG_TAKEN; so a line keeps its order, as the INSERT keeps the earlier of two
 * rows with one slug. Creates without a slug that did not get their title's (taken, or
 * another create's of this call) take its next suffixes after, in one more INSERT.
 */
async function apply(scope: ApplyScope, changes: Create[]): Promise<Outcomes> {
  const rows = new Map<Create, ArticleRow>();
  const bare: ArticleRow[] = [];
  const bareSlugs = new Set<string>();
  for (const change of changes) {
    const { slug, title } = change.data;
    const row = articleRow(scope, change, slug ?? slugFromTitle(title));
    rows.set(change, row);
    if (slug === undefined && bareSlugs.has(row.slug)) continue;
    bare.push(row);
    bareSlugs.add(row.slug);
  }
  const inserted = await insertArticles(scope.tx, bare);
  const suffixed = changes.filter(
    (change) => change.data.slug === undefined && !inserted.has(rows.get(change)!.id),
  );
  const suffixedRows = await insertWithSuffixes(
    scope.tx,
    suffixed.map((change) => ({ base: rows.get(change)!.slug, row: rows.get(change)! })),
  );
  suffixed.forEach((change, i) => rows.set(change, suffixedRows[i]!));

  const outcomes: Outcomes = new Map();
  for (const change of changes) {
    const row = rows.get(change)!;
    if (change.data.slug !== undefined && !inserted.has(row.id)) {
      const taken = new AppError('SLUG_TAKEN', `The slug "${change.data.slug}" is already taken`);
      outcomes.set(change.eventId, failed(taken));
      continue;
    }
    scope.outbox.push(message.entry(change.eventId, row, row.version));
    outcomes.set(change.eventId, succeeded(articleResult(row)));
  }
  return outcomes;
}

export const articleCreate = {
  name: 'article.create',
  scope: 'article:create',
  version: 1,
  description: 'Create an article; its slug is derived from the title unless given',
  dataSchema,
  example: {
    title: 'How we ship on Fridays',
    body: ['We ship small changes, each behind a flag.', 'A rollback is one click away.'],
    excerpt: 'Small changes behind flags, and a rollback one click away.',
    cover: 'https://images.example.com/fridays.jpg',
    category: 'Engineering',
    slug: 'how-we-ship-on-fridays',
  },
  orderKeys: (data) => [data.slug ?? slugFromTitle(data.title)],
  message,
  apply,
} satisfies EventType<'article.create', Create['data'], 'article:create'>;
