import type { OutgoingEventType } from '@ingest/contracts';
import type { Prisma } from '@ingest/db';
import type { ArticleRow } from './article-rows.js';

/**
 * An article as one change left it. A run of updates applies several changes in one
 * write, so each change's state is kept as computed, not read back. Timestamps the change
 * set to the transaction's time are left out: the outbox writer fills them in.
 */
export interface ArticleState extends ArticleRow {
  createdAt?: Date;
  updatedAt?: Date;
}

/** A highlight as created, with the article it links to (a slug, a title) in place of its id. */
export type HighlightState = Omit<Prisma.HighlightGetPayload<object>, 'articleId'> & {
  article: { slug: string; title: string } | null;
};

type ArticleChangeType = Exclude<OutgoingEventType, 'highlight.created'>;

/**
 * One applied change, as processors report it into the transaction's outbox: the
 * message that tells subscribers of it is written in the same transaction.
 */
export type ContentChange =
  | {
      type: ArticleChangeType;
      eventId: string;
      /** As the change left it; a deleted article as it was last. */
      article: ArticleState;
      /**
       * The change's own version: the article's after a create or an update, one more than
       * its last for a delete (which leaves no row to hold it).
       */
      version: number;
    }
  | { type: 'highlight.created'; eventId: string; highlight: HighlightState };

export const accountOfChange = (change: ContentChange): string =>
  change.type === 'highlight.created' ? change.highlight.accountId : change.article.accountId;
