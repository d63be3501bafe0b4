import { AppError, failed, succeeded, type EventResult, type Result } from '@ingest/contracts';
import { articleResult } from './article-result.js';
import {
  deleteOwnArticles,
  ownEntryOf,
  readOwnArticles,
  type StoredArticle,
} from './article-rows.js';
import {
  oneByMany,
  type ApplyScope,
  type Change,
  type EventProcessor,
  type Outcomes,
} from './catalog.js';
import type { Tx } from './tx.js';
import { versionConflict } from './version-check.js';

type Delete = Change<'article.delete'>;

/** Why a delete left its article: not at the version it expects, or no article of yours. */
function whyKept(data: Delete['data'], found: StoredArticle | undefined): AppError {
  const conflict =
    found === undefined ? undefined : versionConflict(data.slug, data.ifVersion, found.version);
  return conflict ?? new AppError('ARTICLE_NOT_FOUND', `You have no article "${data.slug}"`);
}

/**
 * The articles that deletes with `ifVersion` left in place, to tell a conflict (and the
 * version found) from a missing article. Read only when such a delete failed.
 */
async function keptArticles(
  tx: Tx,
  changes: Delete[],
  deleted: Map<string, StoredArticle>,
): Promise<Map<string, StoredArticle>> {
  const kept = changes.filter(
    ({ accountId, data }) =>
      data.ifVersion !== undefined &&
      ownEntryOf(deleted, { accountId, slug: data.slug }) === undefined,
  );
  if (kept.length === 0) return new Map<string, StoredArticle>();
  return readOwnArticles(
    tx,
    kept.map(({ accountId, data }) => ({ accountId, slug: data.slug })),
  );
}

/**
 * Deletes the rows, one statement for all: each article disappears from every read, its
 * slug is free again, and its highlights stay, unlinked. The WebhookLog keeps every
 * payload the article was made from, which is the record to restore it from. A delete
 * with `ifVersion` removes its row only at that version.
 */
async function deleteMany({ tx, outbox }: ApplyScope, changes: Delete[]): Promise<Outcomes> {
  const deleted = await deleteOwnArticles(
    tx,
    changes.map(({ accountId, data }) => ({ accountId, ...data })),
  );
  const kept = await keptArticles(tx, changes, deleted);
  return new Map(
    changes.map(({ eventId, accountId, data }): [string, Result<EventResult>] => {
      const article = ownEntryOf(deleted, { accountId, slug: data.slug });
      if (article === undefined) {
        return [eventId, failed(whyKept(data, ownEntryOf(kept, { accountId, slug: data.slug })))];
      }
      // The delete is the article's last change: it has a version of its own.
      const version = article.version + 1;
      outbox.push({ type: 'article.deleted', eventId, article, version });
      return [eventId, succeeded(articleResult({ ...article, version }, { deleted: true }))];
    }),
  );
}

export const articleDelete: EventProcessor<'article.delete'> = {
  apply: oneByMany(deleteMany),
  applyMany: deleteMany,
};
