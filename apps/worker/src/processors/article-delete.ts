import { AppError, type EventResult } from '@ingest/contracts';
import { deleteOwnArticles, ownEntryOf } from './article-rows.js';
import { oneByMany, type ApplyScope, type Change, type EventProcessor } from './catalog.js';

/**
 * Deletes the rows, one statement for all: each article disappears from every read, its
 * slug is free again, and its highlights stay, unlinked. The WebhookLog keeps every
 * payload the article was made from, which is the record to restore it from.
 */
async function deleteMany(
  { tx }: ApplyScope,
  changes: Array<Change<'article.delete'>>,
): Promise<Map<string, EventResult | AppError>> {
  const deleted = await deleteOwnArticles(
    tx,
    changes.map(({ accountId, data }) => ({ accountId, slug: data.slug })),
  );
  return new Map(
    changes.map(({ eventId, accountId, data }) => {
      const article = ownEntryOf(deleted, { accountId, slug: data.slug });
      return [
        eventId,
        article === undefined
          ? new AppError('ARTICLE_NOT_FOUND', `You have no article "${data.slug}"`)
          : { type: 'article', id: article.id, slug: article.slug, deleted: true },
      ];
    }),
  );
}

export const articleDelete: EventProcessor<'article.delete'> = {
  apply: oneByMany(deleteMany),
  applyMany: deleteMany,
};
