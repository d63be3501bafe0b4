import { AppError, failed, succeeded, type ContentLimits } from '@ingest/contracts';
import { z } from 'zod';
import { articleMessage } from './articles/message.js';
import { articleResult } from './articles/result.js';
import {
  deleteOwnArticles,
  ownEntryOf,
  readOwnArticles,
  type StoredArticle,
} from './articles/rows.js';
import type { ApplyScope, Change, EventType, Outcome, Outcomes, Tx } from './event-type.js';
import { ifVersionField, SlugSchema } from './fields.js';
import { byOccurrence } from './in-order.js';
import { versionConflict } from './version-check.js';

const schema = z.strictObject({ slug: SlugSchema, ifVersion: ifVersionField('article') });
const dataSchema = (_limits: ContentLimits) => schema;

type Delete = Change<z.output<ReturnType<typeof dataSchema>>>;

const message = articleMessage('article.deleted', {
  version: 1,
  description: 'An article was deleted: the article as it was last',
});

/** Why a delete left its article: not at the version it expects, or no article of yours. */
function whyKept(data: Delete['data'], found: StoredArticle | undefined): AppError {
  const conflict =
    found === undefined
      ? undefined
      : versionConflict(`article "${data.slug}"`, data.ifVersion, found.version);
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
async function deleteLayer({ tx, outbox }: ApplyScope, changes: Delete[]): Promise<Outcomes> {
  const deleted = await deleteOwnArticles(
    tx,
    changes.map(({ accountId, data }) => ({ accountId, ...data })),
  );
  const kept = await keptArticles(tx, changes, deleted);
  return new Map(
    changes.map(({ eventId, accountId, data }): [string, Outcome] => {
      const article = ownEntryOf(deleted, { accountId, slug: data.slug });
      if (article === undefined) {
        return [eventId, failed(whyKept(data, ownEntryOf(kept, { accountId, slug: data.slug })))];
      }
      // The delete is the article's last change: it has a version of its own.
      const version = article.version + 1;
      outbox.push(message.entry(eventId, article, version));
      return [eventId, succeeded(articleResult({ ...article, version }, { deleted: true }))];
    }),
  );
}

/** Deletes in layers (see byOccurrence): a second delete of an article sees the first's. */
async function apply(scope: ApplyScope, changes: Delete[]): Promise<Outcomes> {
  const outcomes: Outcomes = new Map();
  for (const layer of byOccurrence(
    changes,
    (change) => `${change.accountId}/${change.data.slug}`,
  )) {
    for (const [eventId, outcome] of await deleteLayer(scope, layer))
      outcomes.set(eventId, outcome);
  }
  return outcomes;
}

export const articleDelete = {
  name: 'article.delete',
  scope: 'article:delete',
  version: 1,
  description: 'Delete one of your articles, found by slug',
  dataSchema,
  example: { slug: 'how-we-ship-on-fridays' },
  orderKeys: (data) => [data.slug],
  message,
  apply,
} satisfies EventType<'article.delete', Delete['data'], 'article:delete'>;
