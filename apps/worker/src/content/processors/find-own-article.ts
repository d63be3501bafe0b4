import { AppError } from '@ingest/contracts';
import type { Tx } from './tx.js';

/**
 * The account's article with `slug`. Another account's article is answered exactly like
 * a missing one. No row lock is needed: the account's events about this slug form a line,
 * and each is applied only after every earlier event of its lines has finished (the claim
 * and the runs in packages/event-log: claims.ts, runs.ts); no other account's event can
 * change this article.
 */
export async function findOwnArticle(tx: Tx, accountId: string, slug: string) {
  const article = await tx.article.findFirst({ where: { slug, accountId } });
  if (article === null) throw new AppError('ARTICLE_NOT_FOUND', `You have no article "${slug}"`);
  return article;
}
