import { HighlightSchema, type Highlight } from '@ingest/contracts';
import type { Prisma } from '@ingest/db';
import { authorOf, changeSchemaOf, recordMessages, type Names } from '../messages.js';

export const HighlightChangeSchema = changeSchemaOf(
  'highlight',
  HighlightSchema,
  'HighlightChange',
);

/** A highlight as a change left it, with the article it links to (a slug, a title). */
export type HighlightState = Prisma.HighlightGetPayload<{
  include: { article: { select: { slug: true; title: true } } };
}>;

/** As GET /api/highlights shows it (apps/api/src/services/reads/highlights.ts). */
const highlightOf = (highlight: HighlightState, names: Names): Highlight => ({
  id: highlight.id,
  title: highlight.title,
  videoUrl: highlight.videoUrl,
  thumbnailUrl: highlight.thumbnailUrl,
  durationSeconds: highlight.durationSeconds,
  description: highlight.description,
  tags: highlight.tags,
  article: highlight.article,
  version: highlight.version,
  author: authorOf(names, highlight.accountId),
  createdAt: highlight.createdAt.toISOString(),
  updatedAt: highlight.updatedAt.toISOString(),
});

/** A message type telling of a highlight's change: the highlight as the change left it. */
export const highlightMessage = recordMessages(
  HighlightChangeSchema,
  (highlight: HighlightState) => ({
    accountId: highlight.accountId,
    categoryIds: [],
    shown: (names) => ({ highlight: highlightOf(highlight, names) }),
  }),
);
