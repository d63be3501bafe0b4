import { AppError, failed, succeeded, type EventResult, type Result } from '@ingest/contracts';
import { deleteOwnArticles, ownEntryOf } from './article-rows.js';
import {
  oneByMany,
  type ApplyScope,
  type Change,
  type EventProcessor,
  type Outcomes,
} from './catalog.js';

/**
 * Deletes the rows, one statement for all: each article disappears from every read, its
 * slug is free again, and its highlights stay, unlinked. The WebhookLog keeps every
 * payload the article was made from, which is the record to restore it from.
 */
async function deleteMany(
  { tx, outbox }: ApplyScope,
  changes: Array<Change<'article.delete'>>,
): Promise<Outcomes> {
  const deleted = await deleteOwnArticles(
    tx,
    changes.map(({ accountId, data }) => ({ accountId, slug: data.slug })),
  );
  return new Map(
    changes.map(({ eventId, accountId, data }): [string, Result<EventResult>] => {
      const article = ownEntryOf(deleted, { accountId, slug: data.slug });
      if (article === undefined) {
        return [
          eventId,
          failed(new AppError('ARTICLE_NOT_FOUND', `You have no article "${data.slug}"`)),
        ];
      }
      // The delete is the article's last change: it has a version of its own.
      outbox.push({
        type: 'article.deleted',
        eventId,
        article: { ...article, version: article.version + 1 },
      });
      return [
        eventId,
        succeeded({ type: 'article', id: article.id, slug: article.slug, deleted: true }),
      ];
    }),
  );
}

export const articleDelete: EventProcessor<'article.delete'> = {
  apply: oneByMany(deleteMany),
  applyMany: deleteMany,
};
