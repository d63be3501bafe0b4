import type { EventName } from '@ingest/contracts';
import { createArticle } from './article-create.js';
import { deleteArticle } from './article-delete.js';
import { updateArticle } from './article-update.js';
import { createHighlight } from './highlight-create.js';
import type { Processor } from './processor.js';

/** The one place an event name is routed to the code that applies it. */
export const PROCESSORS: { [Name in EventName]: Processor<Name> } = {
  'article.create': createArticle,
  'article.update': updateArticle,
  'article.delete': deleteArticle,
  'highlight.create': createHighlight,
};
