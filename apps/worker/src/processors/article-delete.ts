import type { EventProcessor } from './catalog.js';
import { findOwnArticle } from './find-own-article.js';

/**
 * Deletes the row: the article disappears from every read, its slug is free again, and
 * its highlights stay, unlinked. The WebhookLog keeps every payload the article was made
 * from, which is the record to restore it from.
 */
export const articleDelete: EventProcessor<'article.delete'> = {
  async apply(tx, { accountId, data }) {
    const article = await findOwnArticle(tx, accountId, data.slug);
    await tx.article.delete({ where: { id: article.id } });
    return { type: 'article', id: article.id, slug: article.slug, deleted: true };
  },
};
