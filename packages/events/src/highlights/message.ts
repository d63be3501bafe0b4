import { HighlightSchema, type Highlight } from '@ingest/contracts';
import type { Prisma } from '@ingest/db';
import { z } from 'zod';
import { authorOf, CausedBy, type MessageType, type Names, type OutboxEntry } from '../messages.js';

export const HighlightChangeSchema = z
  .object({ highlight: HighlightSchema, ...CausedBy })
  .meta({ id: 'HighlightChange' });

/** A highlight as a change left it, with the article it links to (a slug, a title) in place of its id. */
export type HighlightState = Omit<Prisma.HighlightGetPayload<object>, 'articleId'> & {
  article: { slug: string; title: string } | null;
};

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
  author: authorOf(names, highlight.accountId),
  createdAt: highlight.createdAt.toISOString(),
});

/** A message type telling of a highlight's change: the highlight as the change left it. */
export function highlightMessage<Type extends string>(
  type: Type,
  note: Pick<MessageType, 'version' | 'description'>,
) {
  return {
    type,
    ...note,
    dataSchema: HighlightChangeSchema,
    entry: (eventId: string, highlight: HighlightState): OutboxEntry => ({
      type,
      eventId,
      accountId: highlight.accountId,
      categoryIds: [],
      dataOf: (names) => ({ highlight: highlightOf(highlight, names), eventId }),
    }),
  };
}
