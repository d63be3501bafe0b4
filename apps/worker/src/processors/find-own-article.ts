import { AppError } from '@ingest/contracts';
import type { Tx } from './processor.js';

/**
 * The account's article with `slug`. Another account's article is answered exactly like
 * a missing one. No row lock is needed: every event that touches this slug is applied
 * one after another (see the ordering check in event-job.ts).
 */
export async function findOwnArticle(tx: Tx, accountId: string, slug: string) {
  const article = await tx.article.findFirst({ where: { slug, accountId } });
  if (article === null) throw new AppError('ARTICLE_NOT_FOUND', `You have no article "${slug}"`);
  return article;
}
