import { ArticleSchema, type Article } from '@ingest/contracts';
import { z } from 'zod';
import { authorOf, CausedBy, type MessageType, type Names, type OutboxEntry } from '../messages.js';
import type { ArticleRow } from './rows.js';

export const ArticleChangeSchema = z
  .object({
    article: ArticleSchema.meta({
      description:
        'The article as the public reads show it right after the change (a deleted one: as it was last)',
    }),
    version: z.int().min(1).meta({
      description:
        '1 when created, one more with every change of the article and its delete: deliveries are not ordered, so drop one older than the version you hold',
    }),
    ...CausedBy,
  })
  .meta({ id: 'ArticleChange' });

/**
 * An article as one change left it. A run of updates applies several changes in one
 * write, so each change's state is kept as computed, not read back; timestamps the write
 * sets are left out, and the message shows the transaction's time.
 */
export interface ArticleState extends ArticleRow {
  createdAt?: Date;
  updatedAt?: Date;
}

/** As GET /api/articles/:slug shows it (apps/api/src/services/reads/articles.ts). */
const articleOf = (article: ArticleState, names: Names, at: Date): Article => ({
  slug: article.slug,
  title: article.title,
  excerpt: article.excerpt,
  cover: article.cover,
  category: article.categoryId === null ? null : (names.categories.get(article.categoryId) ?? null),
  readMinutes: article.readMinutes,
  version: article.version,
  author: authorOf(names, article.accountId),
  createdAt: (article.createdAt ?? at).toISOString(),
  updatedAt: (article.updatedAt ?? at).toISOString(),
  body: article.body,
});

/** A message type telling of an article's change: the article as the change left it. */
export function articleMessage<Type extends string>(
  type: Type,
  note: Pick<MessageType, 'version' | 'description'>,
) {
  return {
    type,
    ...note,
    dataSchema: ArticleChangeSchema,
    /** The change's report: `version` is its own (a delete's is one more than the article's). */
    entry: (eventId: string, article: ArticleState, version: number): OutboxEntry => ({
      type,
      eventId,
      accountId: article.accountId,
      categoryIds: article.categoryId === null ? [] : [article.categoryId],
      dataOf: (names, at) => ({ article: articleOf(article, names, at), version, eventId }),
    }),
  };
}
