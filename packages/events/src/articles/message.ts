import { ArticleSchema, type Article } from '@ingest/contracts';
import { authorOf, changeSchemaOf, recordMessages, type Names } from '../messages.js';
import type { ArticleRow } from './rows.js';

export const ArticleChangeSchema = changeSchemaOf('article', ArticleSchema, 'ArticleChange');

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
export const articleMessage = recordMessages(ArticleChangeSchema, (article: ArticleState) => ({
  accountId: article.accountId,
  categoryIds: article.categoryId === null ? [] : [article.categoryId],
  shown: (names, at) => ({ article: articleOf(article, names, at) }),
}));
