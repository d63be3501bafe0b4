import { AppError, type EventResult } from '@ingest/contracts';
import { readingMinutes, slugFromTitle } from '@ingest/domain';
import { v7 as uuidv7 } from 'uuid';
import { insertArticles, type ArticleRow } from './article-rows.js';
import { categoryIdFor } from './categories.js';
import type { Processor, ProcessorContext, Tx } from './processor.js';
import { insertWithFreeSlug } from './slug-allocation.js';

type CreateContext = Omit<ProcessorContext<'article.create'>, 'tx'>;

function articleRow(
  { accountId, data, limits }: CreateContext,
  id: string,
  slug: string,
  categoryId: string | null,
): ArticleRow {
  return {
    id,
    slug,
    accountId,
    title: data.title,
    excerpt: data.excerpt ?? null,
    body: data.body,
    cover: data.cover ?? null,
    categoryId,
    readMinutes: data.readMinutes ?? readingMinutes(data.body, limits.readMinutesMax),
    readMinutesComputed: data.readMinutes === undefined,
  };
}

const categoryOf = (tx: Tx, { data }: CreateContext) =>
  data.category === undefined ? Promise.resolve(null) : categoryIdFor(tx, data.category);

export const createArticle: Processor<'article.create'> = async (context) => {
  const { tx, data } = context;
  if (data.slug !== undefined) {
    const [outcome] = await createArticlesWithSlugs(tx, [context]);
    if (outcome instanceof Error) throw outcome;
    return outcome as EventResult;
  }
  const categoryId = await categoryOf(tx, context);
  const id = uuidv7();
  const slug = await insertWithFreeSlug(tx, slugFromTitle(data.title), async (candidate) => {
    const inserted = await insertArticles(tx, [articleRow(context, id, candidate, categoryId)]);
    return inserted.has(id);
  });
  return { type: 'article', id, slug };
};

/**
 * article.create events that name their slug, in one INSERT. Each gets what changed, or
 * SLUG_TAKEN when its slug is taken; one taken slug does not disturb the others.
 */
export async function createArticlesWithSlugs(
  tx: Tx,
  contexts: CreateContext[],
): Promise<Array<EventResult | AppError>> {
  const rows: ArticleRow[] = [];
  for (const context of contexts) {
    if (context.data.slug === undefined) throw new Error('an article.create without a slug');
    rows.push(articleRow(context, uuidv7(), context.data.slug, await categoryOf(tx, context)));
  }
  const inserted = await insertArticles(tx, rows);
  return rows.map((row) =>
    inserted.has(row.id)
      ? { type: 'article', id: row.id, slug: row.slug }
      : new AppError('SLUG_TAKEN', `The slug "${row.slug}" is already taken`),
  );
}
