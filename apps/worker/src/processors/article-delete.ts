import { findOwnArticle } from './find-own-article.js';
import type { Processor } from './processor.js';

/**
 * Deletes the row: the article disappears from every read, its slug is free again, and
 * its highlights stay, unlinked. The WebhookLog keeps every payload the article was made
 * from, which is the record to restore it from.
 */
export const deleteArticle: Processor<'article.delete'> = async ({ tx, accountId, data }) => {
  const article = await findOwnArticle(tx, accountId, data.slug);
  await tx.article.delete({ where: { id: article.id } });
  return { type: 'article', id: article.id, slug: article.slug, deleted: true };
};
