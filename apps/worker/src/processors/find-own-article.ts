import { AppError } from '@ingest/contracts';
import type { Tx } from './catalog.js';

/**
 * The account's article with `slug`. Another account's article is answered exactly like
 * a missing one. No row lock is needed: the account's events about this slug form a line
 * and are applied one after another (packages/event-log), and no other account's event
 * can change this article.
 */
export async function findOwnArticle(tx: Tx, accountId: string, slug: string) {
  const article = await tx.article.findFirst({ where: { slug, accountId } });
  if (article === null) throw new AppError('ARTICLE_NOT_FOUND', `You have no article "${slug}"`);
  return article;
}
