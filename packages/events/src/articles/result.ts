import type { EventResult } from '@ingest/contracts';
import type { ArticleRow } from './rows.js';

type ArticleResult = Extract<EventResult, { type: 'article' }>;

/**
 * What an article event's receipt shows: the article, and the version the event left it
 * at, which a publisher sends back as its next event's `ifVersion`.
 */
export const articleResult = (
  { id, slug, version }: Pick<ArticleRow, 'id' | 'slug' | 'version'>,
  extra: Pick<ArticleResult, 'deleted'> = {},
): ArticleResult => ({ type: 'article', id, slug, ...extra, version });
